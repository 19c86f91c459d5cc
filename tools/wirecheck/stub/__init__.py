"""HTTP peers for certification: `XopcPlatformStub` (the platform side, served by `StubServer` on 127.0.0.1)
certifies runtime clients; `XopcProbe` (the runtime client side) certifies platform servers. Both record HAR.

har.py (recording) · server.py (stdlib HTTP server) · xopc.py (platform routes) · probe.py (client run)."""
