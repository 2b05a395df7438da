"""Reads every message of an MCAP file with readers we did not write: Python's `mcap` (through
the summary's index and by streaming every record), `mcap-ros2-support` (decoding each ROS 2
message) and `rosbags` (its own reader and deserialiser). They must all see the same messages,
as many as the summary's statistics count. Prints that count.

With --cut, FILE is a recording cut short: Python's `mcap` streams it, checking CRCs, until the
cut, and the count printed is of the messages before it (those of its complete chunks).

usage: read_all.py [--cut] FILE.mcap
"""
import sys
from pathlib import Path

from mcap.reader import make_reader
from mcap.stream_reader import StreamReader
from mcap.records import Message
from mcap_ros2.decoder import DecoderFactory
from rosbags.highlevel import AnyReader

if sys.argv[1] == "--cut":
    streamed = 0
    try:
        with open(sys.argv[2], "rb") as f:
            for r in StreamReader(f, validate_crcs=True).records:
                streamed += isinstance(r, Message)
    except Exception as e:  # the cut: a record that ends early
        print(f"stream stops at the cut: {type(e).__name__}", file=sys.stderr)
    print(streamed)
    sys.exit(0)

path = sys.argv[1]
with open(path, "rb") as f:
    reader = make_reader(f, decoder_factories=[DecoderFactory()])
    summary = reader.get_summary()
    assert summary is not None and summary.statistics is not None, "a summary with statistics"
    expected = summary.statistics.message_count
    indexed = sum(1 for _ in reader.iter_decoded_messages())
with open(path, "rb") as f:
    streamed = sum(1 for r in StreamReader(f, validate_crcs=True).records if isinstance(r, Message))
with AnyReader([Path(path)]) as bag:
    deserialised = 0
    for connection, _, raw in bag.messages():
        bag.deserialize(raw, connection.msgtype)
        deserialised += 1
assert indexed == streamed == deserialised == expected, (indexed, streamed, deserialised, expected)
print(expected)
