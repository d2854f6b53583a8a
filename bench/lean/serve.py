"""serve.py MODE PORT: a thread-per-connection HTTP/1.0 service (Python's
ThreadingHTTPServer, as Radicale serves) for bench/lean's A/A jobs. Every
GET /work?n=N answers after MODE's work: sleep (N ms asleep: no CPU, so a
side's throughput is set by the sleeps alone and any difference between
two sides of one build is the load generator's) or cpu (N/5 ms of a busy
loop holding the GIL, as a CPU-bound Python service does: a lifecycle of
sleep.yml then costs about 80 ms of CPU, as Radicale's does)."""
import http.server
import sys
import time
import urllib.parse

mode, port = sys.argv[1], int(sys.argv[2])


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        q = urllib.parse.urlparse(self.path)
        n = int(urllib.parse.parse_qs(q.query).get("n", ["0"])[0])
        if mode == "sleep":
            time.sleep(n / 1000)
        else:
            end = time.thread_time() + n / 5000
            while time.thread_time() < end:
                pass
        body = b"ok\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
