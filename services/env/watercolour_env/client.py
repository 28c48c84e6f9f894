"""OpenEnv client of the watercolour environment: one WebSocket session per client.

    async with WatercolourEnv(base_url="http://localhost:8000") as env:
        first = await env.reset(subject="a sunflower", weights=preset("hps-led").model_dump(), seed=7)
        result = await env.step(WatercolourAction(reply=completion))
        result.reward, result.observation.breakdown

It imports the wire models only, never server code. A step waits for a render queued behind other
sessions', drawn, judged and scored (watercolour_shared.timeouts), not OpenEnv's default 60 s.

An episode lives in one server session, on one socket. Once that socket is gone (the server closed the session,
code 4408 "session expired" after its idle timeout; or a call timed out and OpenEnv dropped the socket, so that a
late answer can never be read as the next call's), a `step` or `state` raises `SessionLost` and sends nothing:
OpenEnv's client would otherwise reconnect and run it in a new session's default episode (another subject, seed
and weights). A `reset` reconnects and begins a new episode, as before.
"""

from __future__ import annotations

from openenv.core import EnvClient
from openenv.core.client_types import StepResult
from websockets.protocol import State

from watercolour_env.models import WatercolourAction, WatercolourObservation, WatercolourState
from watercolour_shared.timeouts import CLIENT_TIMEOUT_S

# The server's error code, and its close code, for a session it has closed (server/sessions.py sends them).
EXPIRED_CODE = "SESSION_EXPIRED"
EXPIRED_CLOSE_CODE = 4408


class SessionLost(ConnectionError):
    """The server no longer holds this client's episode; nothing was sent. `reset` begins a new one."""


class WatercolourEnv(EnvClient[WatercolourAction, WatercolourObservation, WatercolourState]):
    def __init__(self, base_url: str | None = None, message_timeout_s: float = CLIENT_TIMEOUT_S, **options):
        super().__init__(base_url, message_timeout_s=message_timeout_s, **options)
        self._episode_socket = None  # the socket the current episode was begun on (None: none begun yet)

    async def _reset_async(self, **kwargs) -> StepResult[WatercolourObservation]:
        result = await super()._reset_async(**kwargs)
        self._episode_socket = self._ws
        return result

    async def _send_and_receive(self, message: dict) -> dict:
        for attempt in (1, 2):
            try:
                return await super()._send_and_receive(message)
            except RuntimeError as error:
                if f"(code: {EXPIRED_CODE})" not in str(error):
                    raise
                # The session expired as the message went out; nothing of it was run. A reset begins anew on a new
                # socket (the server is closing this one); any other message's episode is gone.
                if message.get("type") != "reset" or attempt == 2:
                    raise SessionLost(f"the episode's session is gone ({error}): reset to begin another") from error
                ws, self._ws, self._ws_loop = self._ws, None, None
                if ws is not None:
                    self._schedule_socket_close(ws)
        raise AssertionError("unreachable")

    async def _send(self, message: dict) -> None:
        if message.get("type") != "reset":
            lost = self._episode_lost()
            if lost:
                raise SessionLost(f"the episode's session is gone ({lost}): reset to begin another")
        await super()._send(message)

    def _episode_lost(self) -> str | None:
        """Why the episode begun by the last reset is no longer reachable, or None."""
        begun = self._episode_socket
        if begun is None:
            return None  # no reset yet: a step runs in the new session's default episode, as OpenEnv's client does
        if self._ws is not begun:
            return "a call timed out or the socket was replaced"
        if begun.state in (State.CLOSING, State.CLOSED):
            reason = begun.close_reason or "closed"
            return f"the server closed it: {begun.close_code} {reason}" if begun.close_code else "the socket closed"
        return None

    def _step_payload(self, action: WatercolourAction) -> dict:
        return action.model_dump(mode="json", exclude={"metadata"})

    def _parse_result(self, payload: dict) -> StepResult[WatercolourObservation]:
        observation = WatercolourObservation.model_validate(
            {**payload.get("observation", {}), "done": payload.get("done", False), "reward": payload.get("reward")}
        )
        return StepResult(observation=observation, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict) -> WatercolourState:
        return WatercolourState.model_validate(payload)
