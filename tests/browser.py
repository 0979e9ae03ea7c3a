"""A headless Chromium driven through the Chrome DevTools protocol, for the report tests.

No driver package: Chromium's ``--remote-debugging-pipe`` speaks the protocol as
NUL-terminated JSON messages on file descriptors 3 (commands in) and 4 (events and answers
out), so a pipe pair and ``json`` are all it takes. Nothing is downloaded: the browser is the
system's (Debian's ``chromium`` package, installed by ``.ci/run``), or the one named by
``$TWINBENCH_CHROMIUM``.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
TIMEOUT = 30.0


def find_chromium() -> str | None:
    """The browser to use: ``$TWINBENCH_CHROMIUM``, else the first of :data:`CANDIDATES` on PATH."""
    named = os.environ.get("TWINBENCH_CHROMIUM")
    if named:
        return named if shutil.which(named) else None
    return next((path for path in map(shutil.which, CANDIDATES) if path), None)


class BrowserError(RuntimeError):
    pass


class Browser:
    """One headless browser with one page; :meth:`call` sends a command to the page and waits for its answer."""

    def __init__(self, executable: str, width: int = 1280, height: int = 1600) -> None:
        self._profile = tempfile.mkdtemp(prefix="twinbench-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def child_fds() -> None:  # fds 3 and 4 in the browser, whatever numbers the pipes got here
            high_r = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
            high_w = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        self._process = subprocess.Popen(
            [executable, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--hide-scrollbars",
             f"--user-data-dir={self._profile}", "about:blank"],
            pass_fds=(3, 4), preexec_fn=child_fds, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []
        target = self._send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self._send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    # -- the protocol ------------------------------------------------------------------
    def _write(self, message: dict) -> None:
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")

    def _read(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_browser], [], [], left)[0]:
                raise BrowserError("the browser did not answer in time")
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise BrowserError("the browser closed its pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def _send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self._write(message)
        deadline = time.monotonic() + TIMEOUT
        while True:
            answer = self._read(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            if "method" in answer:
                self.events.append(answer)

    def call(self, method: str, params: dict | None = None) -> dict:
        return self._send(method, params, self._session)

    def wait_for(self, method: str) -> dict:
        deadline = time.monotonic() + TIMEOUT
        for event in self.events:
            if event["method"] == method:
                self.events.remove(event)
                return event
        while True:
            event = self._read(deadline)
            if event.get("method") == method:
                return event
            if "method" in event:
                self.events.append(event)

    # -- what the tests use -------------------------------------------------------------
    def open(self, path: Path) -> None:
        self.call("Page.navigate", {"url": Path(path).resolve().as_uri()})
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                 "awaitPromise": True})
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression[:60]}...: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path: Path, full_page: bool = False) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
        data = self.call("Page.captureScreenshot", params)["data"]
        Path(path).write_bytes(base64.b64decode(data))
        return Path(path)

    def console_errors(self) -> list[str]:
        """Every console error, uncaught exception and error log entry seen so far (CSP violations included)."""
        self.evaluate("0")  # let pending events arrive
        out = []
        for event in self.events:
            params = event.get("params", {})
            if event["method"] == "Runtime.exceptionThrown":
                out.append(str(params.get("exceptionDetails", {}).get("text")))
            elif event["method"] == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                out.append(" ".join(str(a.get("value", a.get("description"))) for a in params.get("args", [])))
            elif event["method"] == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                out.append(params["entry"].get("text", ""))
        return out

    def close(self) -> None:
        try:
            self._send("Browser.close")
        except (BrowserError, OSError):
            pass
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
