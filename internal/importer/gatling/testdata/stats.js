var stats = {
    type: "GROUP",
name: "All Requests",
path: "",
pathFormatted: "group_missing-name--1146707516",
stats: {
    "name": "All Requests",
    "numberOfRequests": {
        "total": 200,
        "ok": 190,
        "ko": 10
    },
    "minResponseTime": {
        "total": 5,
        "ok": 5,
        "ko": 30
    },
    "maxResponseTime": {
        "total": 1200,
        "ok": 900,
        "ko": 1200
    },
    "meanResponseTime": {
        "total": 120,
        "ok": 110,
        "ko": 310
    },
    "standardDeviation": {
        "total": 80,
        "ok": 70,
        "ko": 200
    },
    "percentiles1": {
        "total": 100,
        "ok": 95,
        "ko": 250
    },
    "percentiles2": {
        "total": 150,
        "ok": 140,
        "ko": 400
    },
    "percentiles3": {
        "total": 300,
        "ok": 280,
        "ko": 1100
    },
    "percentiles4": {
        "total": 800,
        "ok": 700,
        "ko": 1190
    },
    "group1": {
        "name": "t < 800 ms",
        "htmlName": "t < 800 ms",
        "count": 185,
        "percentage": 93
    },
    "meanNumberOfRequestsPerSecond": {
        "total": 20,
        "ok": 19,
        "ko": 1
    }
},
contents: {
"group_checkout-1": {
          type: "GROUP",
name: "checkout",
path: "checkout",
pathFormatted: "group_checkout-1",
stats: {
    "name": "checkout",
    "numberOfRequests": {
        "total": 50,
        "ok": 40,
        "ko": 10
    }
},
contents: {
"req_checkout---pay-2": {
        type: "REQUEST",
        name: "POST /pay",
path: "checkout / POST /pay",
pathFormatted: "req_checkout---pay-2",
stats: {
    "name": "POST /pay",
    "numberOfRequests": {
        "total": 50,
        "ok": 40,
        "ko": 10
    },
    "maxResponseTime": {
        "total": 1200,
        "ok": 800,
        "ko": 1200
    },
    "meanResponseTime": {
        "total": 180,
        "ok": 150,
        "ko": 310
    },
    "percentiles1": {
        "total": 160,
        "ok": 150,
        "ko": 250
    },
    "percentiles3": {
        "total": 900,
        "ok": 700,
        "ko": 1100
    },
    "percentiles4": {
        "total": 1150,
        "ok": 790,
        "ko": 1190
    },
    "meanNumberOfRequestsPerSecond": {
        "total": 5,
        "ok": 4,
        "ko": 1
    }
}
    }
}

     },"req_get-items-1": {
        type: "REQUEST",
        name: "GET /items",
path: "GET /items",
pathFormatted: "req_get-items-1",
stats: {
    "name": "GET /items",
    "numberOfRequests": {
        "total": 150,
        "ok": 150,
        "ko": 0
    },
    "maxResponseTime": {
        "total": 900,
        "ok": 900,
        "ko": "-"
    },
    "meanResponseTime": {
        "total": 100,
        "ok": 100,
        "ko": "-"
    },
    "percentiles1": {
        "total": 90,
        "ok": 90,
        "ko": "-"
    },
    "percentiles3": {
        "total": 250,
        "ok": 250,
        "ko": "-"
    },
    "percentiles4": {
        "total": 700,
        "ok": 700,
        "ko": "-"
    },
    "meanNumberOfRequestsPerSecond": {
        "total": 15,
        "ok": 15,
        "ko": 0
    }
}
    }
}

}

function fillStats(stat){
    $("#numberOfRequests").append(stat.numberOfRequests.total);
    $("#numberOfRequestsOK").append(stat.numberOfRequests.ok);
    $("#numberOfRequestsKO").append(stat.numberOfRequests.ko);
}
