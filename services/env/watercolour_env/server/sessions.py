"""OpenEnv's reset/step/ws/mcp routes and the sessions behind them, counted in /health.

Every kind of session counts against `max_sessions` in one place (OpenEnv's session table): a `/ws` socket's own
session, a `/mcp` socket's, and a bare one made by `POST /mcp` `openenv/session/create` (which a socket may
later attach to with `/ws?session_id=`). One reaper (ours, in place of OpenEnv's) closes them all the same way:

- a session that has done nothing since its create (no message, no attach, no MCP call) after
  `session_grace_s` (60 s), so creates that are never used cannot lock the sockets out for the idle timeout;
- any other session after `session_idle_timeout_s` (an hour) without a message;
- never while a message of its socket, or a `POST /mcp` call naming it, is being answered (a render may outlast
  either timeout).

A reaped session's socket is closed with it: the server sends an error frame (code `SESSION_EXPIRED`) and closes
with code 4408, reason "session expired"; a message that still arrives on it is not run. A socket whose session is
gone any other way (an MCP `openenv/session/close`) is closed at its next message the same way.

A client that leaves while its message is being answered (a render in flight) is no error of the server's: the
answer is dropped without a traceback and counted (`client_gone`).
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import time
from collections import Counter

from fastapi import FastAPI
from openenv.core.env_server.http_server import HTTPEnvServer
from openenv.core.env_server.types import ConcurrencyConfig

from watercolour_env.client import EXPIRED_CLOSE_CODE, EXPIRED_CODE  # private use (4000-4999), after HTTP's 408
from watercolour_env.models import WatercolourAction, WatercolourObservation, WatercolourState
from watercolour_env.server.watercolour_environment import WatercolourEnvironment
from watercolour_env.services import EnvServices

log = logging.getLogger(__name__)

SOCKET_PATHS = ("/ws", "/mcp")
CLOSE_WAIT_S = 2.0  # how long the reaper waits on one socket's close

# The socket whose handler is running: set around each WebSocket route, read when OpenEnv creates or attaches a session.
_current_socket: contextvars.ContextVar[_Socket | None] = contextvars.ContextVar("watercolour_socket", default=None)


class OpenEnvSessions:
    def __init__(self, services: EnvServices):
        settings = services.settings
        self.idle_timeout_s = settings.session_idle_timeout_s
        self.grace_s = settings.session_grace_s
        limits = ConcurrencyConfig(max_concurrent_envs=settings.max_sessions, session_timeout=self.idle_timeout_s)
        self._server = _SessionServer(
            lambda: WatercolourEnvironment(services),
            WatercolourAction,
            WatercolourObservation,
            concurrency_config=limits,
            env_name="watercolour",
            state_cls=WatercolourState,
            grace_s=self.grace_s,
        )
        # OpenEnv registers its routes, and its reaper's start and stop hooks, on an app of its own.
        self._openenv_app = FastAPI()
        self._server.register_routes(self._openenv_app)

    def add_routes_to(self, app: FastAPI) -> None:
        """OpenEnv's routes, after the app's own: where both answer a path (/health), the app's wins. Its
        WebSocket routes are wrapped so that their sockets are known to the reaper."""
        ours = {getattr(route, "path", None) for route in app.router.routes}
        for route in self._openenv_app.router.routes:
            path = getattr(route, "path", None)
            if path in ours:
                continue
            if path in SOCKET_PATHS and not hasattr(route, "methods"):  # the WebSocket routes, not POST /mcp
                route.app = self._server.watch_sockets(route.app, path)
            elif path == "/mcp":  # POST /mcp: a call may name a session made by openenv/session/create
                route.app = self._server.watch_calls(route.app)
            app.router.routes.append(route)

    # The app's lifespan starts and stops the reaper: OpenEnv's hooks are never run by an app that has a lifespan.
    async def start(self) -> None:
        for hook in self._openenv_app.router.on_startup:
            await hook()

    async def close(self) -> None:
        for hook in self._openenv_app.router.on_shutdown:
            await hook()

    def health(self) -> dict:
        capacity = self._server.get_capacity_status()
        return {
            "active": capacity.active_sessions,
            "max": capacity.max_sessions,
            "idle_timeout_s": self.idle_timeout_s,
            "grace_s": self.grace_s,
            "expired": {"idle": self._server.expired["idle"], "unused": self._server.expired["unused"]},
            "client_gone": self._server.client_gone,
        }


class _SessionServer(HTTPEnvServer):
    """OpenEnv's server, with its sessions' sockets known and one reaper for every kind of session."""

    def __init__(self, *args, grace_s: float, **kwargs):
        super().__init__(*args, **kwargs)
        self.grace_s = grace_s
        self._sockets: dict[str, _Socket] = {}
        self._used: set[str] = set()
        self.expired: Counter[str] = Counter()
        self.client_gone = 0
        self._calls: Counter[str] = Counter()  # POST /mcp calls in flight, by the session they name

    # OpenEnv's hooks: a session created or attached to inside a socket's handler belongs to that socket.
    async def _create_session(self):
        session_id, env = await super()._create_session()
        socket = _current_socket.get()
        if socket is not None and socket.session_id is None:
            socket.session_id = session_id
            self._sockets[session_id] = socket
        return session_id, env

    def _update_session_activity(self, session_id: str, increment_step: bool = False) -> None:
        """OpenEnv calls this after each message a session answers, and when a socket attaches to it."""
        socket = _current_socket.get()
        if socket is not None and socket.session_id is None and session_id in self._sessions:
            socket.session_id = session_id  # a socket attaching to a session made by POST /mcp
            self._sockets[session_id] = socket
        if session_id in self._session_info:
            self._used.add(session_id)
        super()._update_session_activity(session_id, increment_step)

    async def _destroy_session(self, session_id: str) -> None:
        await super()._destroy_session(session_id)
        self._forget(session_id)

    def _forget(self, session_id: str) -> None:
        self._used.discard(session_id)
        self._sockets.pop(session_id, None)

    def watch_calls(self, handler):
        """`handler` (OpenEnv's POST /mcp) with the session a call names held while the call is answered: it is used
        from the call's start (OpenEnv notes it only at the end), and the reaper never closes it under the call."""

        async def watched(scope, receive, send) -> None:
            read = [await receive()]
            while read[-1]["type"] == "http.request" and read[-1].get("more_body"):
                read.append(await receive())
            session_id = _named_session(b"".join(message.get("body", b"") for message in read))

            async def replay() -> dict:
                return read.pop(0) if read else await receive()

            if session_id is None:
                return await handler(scope, replay, send)
            self._calls[session_id] += 1
            self._update_session_activity(session_id)
            try:
                await handler(scope, replay, send)
            finally:
                self._calls[session_id] -= 1
                if not self._calls[session_id]:
                    del self._calls[session_id]

        return watched

    def watch_sockets(self, handler, path: str):
        """`handler` (an OpenEnv WebSocket route's ASGI app) with its socket known to this server."""

        async def watched(scope, receive, send) -> None:
            socket = _Socket(self, path, receive, send)
            token = _current_socket.set(socket)
            try:
                await handler(scope, socket.receive, socket.send)
            finally:
                _current_socket.reset(token)
                if socket.session_id is not None and self._sockets.get(socket.session_id) is socket:
                    del self._sockets[socket.session_id]

        return watched

    def held(self, session_id: str) -> bool:
        return session_id in self._sessions

    # The reaper, in place of OpenEnv's (which spares sessions a socket attached to, and closes no socket).
    async def _reap_idle_sessions(self) -> None:
        every_s = max(min(self.grace_s, self._session_idle_timeout_s or self.grace_s) / 4, 0.5)
        while True:
            try:
                await asyncio.sleep(every_s)
                await self.reap(time.time())
            except asyncio.CancelledError:
                break
            except Exception as error:  # noqa: BLE001 - the reaper goes on; the next round retries
                log.warning("the session reaper failed (it will retry): %s", error)

    def _limit(self, why: str) -> float:
        return self._session_idle_timeout_s if why == "idle" else self.grace_s

    def _stale(self, session_id: str, last_activity_at: float, now: float | None = None) -> str | None:
        """ "idle" or "unused" when the session is past its timeout, else None."""
        why = "idle" if session_id in self._used else "unused"
        return why if (now or time.time()) - last_activity_at > self._limit(why) else None

    async def reap(self, now: float) -> None:
        for session_id in [s for s in (*self._used, *self._sockets) if s not in self._sessions]:
            self._forget(session_id)  # closed without us (MCP's openenv/session/close)
        doomed: list[tuple[str, str, _Socket | None]] = []
        for session_id, info in list(self._session_info.items()):
            socket = self._sockets.get(session_id)
            if (socket is not None and socket.busy) or self._calls.get(session_id):
                continue
            why = self._stale(session_id, info.last_activity_at, now)
            if why is not None:
                if socket is not None:  # from now on, a message of it is refused, not run
                    socket.expire(f"session expired: {why} for over {self._limit(why):g} s")
                doomed.append((session_id, why, socket))
        # Sockets are told first (once /health stops counting a session, its client has been told), all at once and
        # each for at most CLOSE_WAIT_S: a client that stops reading holds its own close, not every other expiry.
        told = [asyncio.wait_for(socket.close_expired(), CLOSE_WAIT_S) for _, _, socket in doomed if socket is not None]
        await asyncio.gather(*told, return_exceptions=True)
        for session_id, why, socket in doomed:
            if socket is None:  # no socket to refuse its messages: look again, as a message or an attach may have come
                info = self._session_info.get(session_id)
                still_stale = info is not None and self._stale(session_id, info.last_activity_at) is not None
                if not still_stale or session_id in self._sockets or self._calls.get(session_id):
                    continue
            await self._destroy_session(session_id)
            self.expired[why] += 1
            log.info("closed session %s: %s", session_id, why)


class _Socket:
    """One WebSocket of an OpenEnv route, between uvicorn and OpenEnv's handler."""

    def __init__(self, server: _SessionServer, path: str, receive, send):
        self.server = server
        self.path = path
        self.session_id: str | None = None
        self.busy = False  # a message of it is being answered
        self.expired: str | None = None  # why its session was closed under it
        self._closed = False  # closed by us, or found gone: nothing more is sent
        self._closing = False
        self._receive = receive
        self._send = send

    async def receive(self) -> dict:
        message = await self._receive()
        while message["type"] == "websocket.receive" and (unreadable := _unreadable(message)):
            # OpenEnv answers JSON syntax errors itself, but these end its handler and the session with them.
            frame = (
                {"jsonrpc": "2.0", "error": {"code": -32700, "message": unreadable}, "id": None}  # JSON-RPC's parse error
                if self.path == "/mcp"
                else {"type": "error", "data": {"message": unreadable, "code": "INVALID_JSON"}}
            )
            await self._send_once({"type": "websocket.send", "text": json.dumps(frame)})
            message = await self._receive()
        if message["type"] != "websocket.receive":
            return message
        if self.expired is None and self.session_id is not None and not self.server.held(self.session_id):
            self.expire("session expired: closed on the server")  # e.g. closed through MCP
        if self.expired is not None:  # not run: the client is told why, and the handler sees the socket closed
            await self.close_expired()
            return {"type": "websocket.disconnect", "code": EXPIRED_CLOSE_CODE, "reason": "session expired"}
        self.busy = True
        if self.session_id is not None:
            self.server._update_session_activity(self.session_id)
        return message

    async def send(self, message: dict) -> None:
        if self.expired is not None:  # the handler's own close of an expired socket: ours says why instead
            if message["type"] == "websocket.close":
                await self.close_expired()
            return
        await self._send_once(message)

    async def _send_once(self, message: dict) -> None:
        if self._closed:
            return
        if message["type"] == "websocket.send":
            self.busy = False
        elif message["type"] == "websocket.close":
            self._closed = True
        try:
            await self._send(message)
        except OSError:  # uvicorn's ClientDisconnected: the client left before its answer
            self._closed = True
            if message["type"] == "websocket.send":
                self.server.client_gone += 1
                log.info("a client left before its answer (session %s)", self.session_id)

    def expire(self, why: str) -> None:
        self.expired = why

    async def close_expired(self) -> None:
        """Tell the client why, then close: OpenEnv's clients read a frame that came before the close."""
        if self._closing:
            return
        self._closing = True
        why = self.expired or "session expired"
        if self.path == "/mcp":
            frame = {"jsonrpc": "2.0", "error": {"code": -32000, "message": why, "data": {"code": EXPIRED_CODE}}, "id": None}
        else:
            frame = {"type": "error", "data": {"message": why, "code": EXPIRED_CODE}}
        try:
            await self._send_once({"type": "websocket.send", "text": json.dumps(frame)})
            await self._send_once({"type": "websocket.close", "code": EXPIRED_CLOSE_CODE, "reason": "session expired"})
        except RuntimeError:  # the client closed it first: uvicorn refuses a second close
            self._closed = True


def _unreadable(message: dict) -> str | None:
    """Why a message's JSON, well-formed as text, cannot be read in Python: an integer of thousands of digits, or
    nesting deeper than the parser's recursion allows. None for anything else, JSON syntax errors included."""
    try:
        json.loads(message.get("text") or message.get("bytes") or "null")
    except json.JSONDecodeError:
        return None
    except (ValueError, RecursionError) as error:
        return f"Invalid JSON: {type(error).__name__}: {str(error)[:200]}"
    return None


def _named_session(body: bytes) -> str | None:
    """The session a JSON-RPC call's params name, if any; None for anything else (OpenEnv answers it)."""
    try:
        call = json.loads(body or b"null")
    except (ValueError, RecursionError):
        return None
    params = call.get("params") if isinstance(call, dict) else None
    session_id = params.get("session_id") if isinstance(params, dict) else None
    return session_id if isinstance(session_id, str) else None
