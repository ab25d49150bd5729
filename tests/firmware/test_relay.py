"""examples/firmware/relay.py on hostile input, without QEMU.

`python3 -m unittest discover -s tests/firmware` (standard library only).

The relay runs with a stand-in for QEMU (`fake_qemu.py`): it opens the relay's serial
devices as QEMU's -serial devices do (Unix sockets, or named pipes with `--serial
pipe`), answers every line on UART0 with a JSON-RPC error carrying id null, and says
`I` (idle) once the byte count the relay announced has come: on the link line (UART1),
or with `--link files` through the files `eof` and `idle` in its working directory.
So the relay's own handling of the traffic is what is tested: it must forward every
byte, survive every line, announce the right count, and end when input has ended.
"""

import importlib.util
import os
import random
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
RELAY = os.path.join(REPO, "examples", "firmware", "relay.py")
FAKE = os.path.join(HERE, "fake_qemu.py")

spec = importlib.util.spec_from_file_location("relay", RELAY)
relay = importlib.util.module_from_spec(spec)
spec.loader.exec_module(relay)

DEEP = 5000  # Python's recursive json decoder gives up at about 1,000 levels
PING = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'


def nested(depth, inner=b"1"):
    return b"[" * depth + inner + b"]" * depth


class Keys(unittest.TestCase):
    """The ids the relay tracks: the ones the core answers with that id."""

    def test_requests(self):
        self.assertEqual(relay.request_key(PING), "1")
        self.assertEqual(relay.request_key(b'{"id":"a\\u0062","method":"x"}'),
                         relay.response_key(b'{"id":"a\\u0062","result":{}}'))
        self.assertEqual(relay.request_key(b' { "id" : -7 , "method" : 7 } '), "-7")
        self.assertEqual(relay.request_key(b'{"jsonrpc":"2.0","id":4}'), "4")
        self.assertEqual(relay.request_key(b'{"params":{"id":9},"id":3,"method":"m"}'), "3")

    def test_not_answered_with_their_id(self):
        for line in [b"", b"{not json", b"[1]", b'"x"', b'{"id":null,"method":"m"}',
                     b'{"id":1.5,"method":"m"}', b'{"id":true,"method":"m"}',
                     b'{"id":{"a":1},"method":"m"}', b'{"method":"m"}',
                     b'{"id":"' + b"x" * 70 + b'","method":"m"}',
                     b'{"id":1,"result":{}}', b'{"id":1,"method":"m"',
                     b'{"id":1,"method":"subscriptions/listen"}',
                     b'{"id":1,"method":"m"} x']:
            self.assertIsNone(relay.request_key(line), line)

    def test_responses(self):
        self.assertEqual(relay.response_key(b'{"jsonrpc":"2.0","id":"a","result":{}}'), '"a"')
        self.assertEqual(relay.response_key(b'{"id":null,"error":{"code":-32700}}'), "null")
        self.assertIsNone(relay.response_key(b'{"id":1,"method":"m"}'))
        self.assertIsNone(relay.response_key(b"boot banner"))

    def test_invalid_text_is_no_exception(self):
        for line in [b'{"id":"\xed\xa0\x80","method":"m"}', b'{"id":"\xff","method":"m"}']:
            self.assertIsNone(relay.request_key(line))
        # The core reads neither (a parse error, answered with id null).
        self.assertIsNone(relay.request_key(b'{"id":"\\ud800","method":"m"}'))
        self.assertIsNone(relay.request_key(b'{"id":1,"method":"\\udc00"}'))
        self.assertEqual(relay.request_key(b'{"id":"\\ud83d\\ude00","method":"m"}'), '"\\ud83d\\ude00"')
        self.assertEqual(relay.request_key(b'{"id":1,"id":"dup","method":"m"}'), "1")

    def test_deep_lines_are_no_exception(self):
        for inner in [b"1", b'{"a":' * 3000 + b"1" + b"}" * 3000]:
            deep = nested(DEEP, inner)
            self.assertIsNone(relay.request_key(deep))
            self.assertIsNone(relay.response_key(deep))
        # Deeper than the core reads: answered with id null, so not tracked.
        line = b'{"jsonrpc":"2.0","id":9,"method":"ping","params":{"a":' + nested(DEEP) + b"}}"
        self.assertIsNone(relay.request_key(line))
        line = b'{"jsonrpc":"2.0","id":9,"method":"ping","params":{"a":' + nested(20) + b"}}"
        self.assertEqual(relay.request_key(line), "9")
        # Brackets inside a string are text; within the line buffer, the id is read.
        self.assertEqual(relay.request_key(b'{"id":9,"method":"m","p":"' + b"[" * 900 + b'"}'), "9")
        # Longer than the firmware's line buffer: answered with id null.
        self.assertIsNone(relay.request_key(b'{"id":9,"method":"m","p":"' + b"[" * 2000 + b'"}'))
        self.assertIsNone(relay.request_key(b"{" * DEEP))
        self.assertIsNone(relay.request_key(b'{"id":1,"a":' + b"[" * DEEP))


class Random(unittest.TestCase):
    """Random lines from JSON-ish fragments and raw bytes: the classifiers themselves
    (not their never-raise guard) return a key or None, nothing else."""

    FRAGMENTS = [b"{", b"}", b"[", b"]", b'"', b":", b",", b'"id"', b'"method"', b'"result"',
                 b'"error"', b'"jsonrpc"', b'"2.0"', b"1", b"-0", b"1e400", b"1.5", b"null",
                 b"true", b'"a"', b'"\\ud800"', b'"\\u0000"', b'"\\"', b"\xff", b"\xed\xa0\x80",
                 b"\x00", b" ", b"\r", b'"subscriptions/listen"', b'"x' * 40]

    def test_classifiers_never_raise(self):
        rng = random.Random(26)
        for _ in range(3000):
            if rng.random() < 0.2:
                line = bytes(rng.randrange(256) for _ in range(rng.randrange(64)))
            else:
                parts = [rng.choice(self.FRAGMENTS) for _ in range(rng.randrange(1, 40))]
                if rng.random() < 0.3:
                    parts = [b'{"jsonrpc":"2.0","id":'] + parts + [b',"method":"m"}']
                line = b"".join(parts)
            line = line.replace(b"\n", b" ")
            for classify in (relay.request_key.__wrapped__, relay.response_key.__wrapped__):
                key = classify(line)
                self.assertTrue(key is None or isinstance(key, str), (line, key))


class Process(unittest.TestCase):
    LINES = [nested(DEEP), b'{"a":' * DEEP + b"}" * DEEP,
             b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":' + nested(DEEP) + b"}}",
             b"\xff\xfe{", b'{"id":"\xed\xa0\x80","method":"m"}', b'{"id":"\\ud800","method":"m"}',
             b"{" * DEEP, b"", b"\r", PING]

    def run_relay(self, data, *options):
        p = subprocess.run([sys.executable, RELAY, *options, sys.executable, FAKE], input=data,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        return p.returncode, p.stdout.split(b"\n")[:-1], p.stderr.decode(errors="replace")

    def check_every_line(self, *options):
        data = b"\n".join(self.LINES) + b"\n"
        code, out, err = self.run_relay(data, *options)
        self.assertEqual(code, 0, err)
        self.assertNotIn("not idle", err)
        # The fake answers each non-empty line once, in order.
        self.assertEqual(len(out), sum(1 for line in self.LINES if line.strip()), err)

    def test_every_line_is_forwarded_and_the_relay_ends(self):
        self.check_every_line()

    def test_the_same_over_pipes(self):
        self.check_every_line("--serial", "pipe")

    def test_the_same_with_the_file_link(self):
        # The fake exits 3 or 4 (the relay's code then) when `eof` is wrong, and never
        # says idle when the relay did not run it in the folder that holds `eof`.
        self.check_every_line("--link", "files")
        self.check_every_line("--link", "files", "--serial", "pipe")

    def test_a_last_line_without_newline_with_the_file_link(self):
        code, out, err = self.run_relay(PING + b"\n" + PING, "--link", "files")
        self.assertEqual((code, len(out)), (0, 2), err)
        self.assertNotIn("not idle", err)

    def test_qemu_stopping_ends_the_relay_with_its_code(self):
        for options in [(), ("--serial", "pipe"), ("--link", "files", "--serial", "pipe")]:
            code, out, err = self.run_relay(PING + b"\nexit 7\n" + PING + b"\n", *options)
            self.assertEqual((code, len(out)), (7, 1), (options, err))

    def test_unknown_options_are_refused(self):
        for options in [("--link", "tcp"), ("--serial", "tcp"), ("--link",)]:
            code, _, err = self.run_relay(b"", *options)
            self.assertEqual(code, 2, (options, err))


if __name__ == "__main__":
    unittest.main()
