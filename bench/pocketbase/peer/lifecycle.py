"""The lifecycle of bench/pocketbase/ab.yml, as Locust runs it: the peer
that measures the injected builds on the gate's own workload (peer.sh).

Each user signs in once as one seeded user (users.csv, in turn), then
loops create, get, assign, resolve and search, checking each answer as
ab.yml does. One greenlet measures: once every user has spawned and
PEER_WARM seconds have passed, it reads the server's CPU time (the sum of
its threads' schedstat run time) and the count of lifecycles completed,
again PEER_SPAN seconds later, writes the CPU per lifecycle to PEER_OUT
and stops the run.
"""
import json
import os
import time

import gevent
from locust import FastHttpUser, events, task

PID = os.environ["PEER_PID"]
WARM = float(os.environ.get("PEER_WARM", "2"))
SPAN = float(os.environ.get("PEER_SPAN", "6"))
with open(os.environ["PEER_USERS"]) as f:
    EMAILS = [line.split(",")[0] for line in f.read().splitlines()[1:] if line]
PASSWORD = os.environ["PB_BENCH_PASSWORD"]
REC = "/api/collections/complaints/records"
state = {"done": 0, "failed": 0, "next_user": 0}


def cpu_ns():
    total = 0
    for tid in os.listdir(f"/proc/{PID}/task"):
        try:
            with open(f"/proc/{PID}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
        except FileNotFoundError:  # a thread that ended meanwhile
            pass
    return total


class Signed(FastHttpUser):
    def on_start(self):
        n = state["next_user"]
        state["next_user"] += 1
        self.agent = f"agent-{n + 1}"
        r = self.client.post("/api/collections/users/auth-with-password",
                             json={"identity": EMAILS[n % len(EMAILS)], "password": PASSWORD})
        body = r.json()
        self.uid = body["record"]["id"]
        self.auth = {"Authorization": "Bearer " + body["token"]}

    @task
    def lifecycle(self):
        try:
            self.steps()
            state["done"] += 1
        except Exception:  # a failed check: counted, the lifecycle not
            state["failed"] += 1

    def steps(self):
        c, h = self.client, self.auth
        rec = c.post(REC, headers=h, name="create", json={"title": "complaint", "body": "the printer jams",
                                                         "state": "open", "reporter": self.uid}).json()
        rid = rec["id"]
        assert c.get(f"{REC}/{rid}", headers=h, name="get").json()["state"] == "open"
        assert c.patch(f"{REC}/{rid}", headers=h, name="assign", json={"state": "assigned", "assignee": self.agent}).json()["state"] == "assigned"
        assert c.patch(f"{REC}/{rid}", headers=h, name="resolve", json={"state": "resolved"}).json()["state"] == "resolved"
        q = f"{REC}?filter=(assignee%3D%27{self.agent}%27%26%26state%3D%27resolved%27)&sort=-updated&perPage=10"
        assert c.get(q, headers=h, name="search").json()["items"][0]["id"] == rid


@events.test_start.add_listener
def measure(environment, **_):
    def run():
        while environment.runner.user_count < environment.parsed_options.num_users:
            gevent.sleep(0.05)
        gevent.sleep(WARM)
        c0, n0, t0 = cpu_ns(), state["done"], time.monotonic()
        gevent.sleep(SPAN)
        c1, n1, t1 = cpu_ns(), state["done"], time.monotonic()
        with open(os.environ["PEER_OUT"], "w") as f:
            json.dump({"lifecycles": n1 - n0, "seconds": t1 - t0, "failed": state["failed"],
                       "cpu_ms_per_lifecycle": (c1 - c0) / 1e6 / max(n1 - n0, 1)}, f)
        environment.runner.quit()
    gevent.spawn(run)
