"""A broker that admits known clients only (Mosquitto with `allow_anonymous false` and
a `password_file`): the sensor board (`--mqtt-user`) and the gateway (`--user`) log in
with the password in EMCP_MQTT_PASSWORD, and the fleet is served as on an open broker;
a wrong password is refused by the broker and said so on stderr, and nothing of that
device reaches the fleet.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import time
from typing import Any

import pytest
from conftest import BRIDGE, Broker, Device, gateway
from test_board import BOARD, BOARD_CMD, OWN, temperature
from test_gateway import wait_tools

pytestmark = pytest.mark.anyio

USERS = {"board": "board-secret", "gateway": "gateway-secret"}


@pytest.fixture
def locked() -> Any:
    """A mosquitto whose password file knows USERS, and nobody else."""
    b = Broker()
    b.stop()
    passwords = os.path.join(b.dir.name, "passwords")
    for user, password in USERS.items():
        subprocess.run(["mosquitto_passwd", "-b", *(["-c"] if user == "board" else []), passwords, user, password],
                       check=True, capture_output=True)
    # Mosquitto started as root reads the file as its own user, `mosquitto`.
    os.chmod(b.dir.name, 0o755)
    os.chmod(passwords, 0o644)
    b.conf.write_text(
        f"per_listener_settings true\nlistener {b.port} 127.0.0.1\n"
        f"allow_anonymous false\npassword_file {passwords}\npersistence false\n"
    )
    b.start()
    yield b
    b.close()


def board_stderr(broker: Broker, password: str, seconds: float) -> str:
    """Run the board logging in as `board` with `password` for a while: its stderr."""
    argv = shlex.split(BOARD_CMD.format(broker=broker.address, sid="lab-locked", name="lab/locked"))
    env = dict(os.environ, EMCP_MQTT_PASSWORD=password)
    proc = subprocess.Popen(argv + ["--mqtt-user", "board"], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(seconds)
    proc.kill()
    return proc.communicate()[1].decode(errors="replace")


async def test_logged_in_board_through_logged_in_gateway(locked: Broker, monkeypatch: Any) -> None:
    monkeypatch.setenv("EMCP_MQTT_PASSWORD", USERS["board"])
    board = Device(locked, "lab-locked", "lab/locked", command=f"{BOARD_CMD} --mqtt-user board")
    try:
        monkeypatch.setenv("EMCP_MQTT_PASSWORD", USERS["gateway"])
        async with gateway(locked, "--fleet", "--user", "gateway") as s:
            await wait_tools(s, {f"lab.locked.{t}" for t in OWN})
            assert -40.0 < await temperature(s, "lab.locked.read_sensor") < 125.0
    finally:
        board.kill()


def test_a_wrong_password_is_refused_and_said(locked: Broker) -> None:
    err = board_stderr(locked, "not-the-password", 1.5)
    # Mosquitto 2.0 answers a wrong password 0x87 (not authorized); MQTT 5 also has
    # 0x86 (bad user name or password) for it.
    assert re.search(r"refused the connection \(reason code 0x8[67]: (not authorized|bad user name or password)\)", err), err
    # The same board with the right password is admitted: the refusal was the password's.
    err = board_stderr(locked, USERS["board"], 1.5)
    assert "refused" not in err and "MQTT broker" in err, err


def test_a_gateway_without_login_is_refused_and_said(locked: Broker) -> None:
    proc = subprocess.Popen([BRIDGE, "mqtt", "--broker", locked.address, "--fleet"],
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(1.5)
    proc.kill()
    err = proc.communicate()[1].decode(errors="replace")
    assert re.search(r"refused the connection \(reason 0x8[67]: (not authorized|bad user name or password)\)", err), err

