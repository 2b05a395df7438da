"""A ROS 2 parameter client of `passerby serve --ros2` that shares no code with it: Cyclone DDS
(`cyclonedds` from PyPI) calling the node's `rcl_interfaces` services as `ros2 param` would,
framed as either ROS 2 middleware frames them:

  cyclone   rmw_cyclonedds_cpp: a 16-byte request identity (client GUID half, sequence
            number) before the request and echoed before the reply
  fastdds   rmw_fastrtps_cpp: the payload alone (the identity travels as inline QoS, which
            this client does not need as it has one request in flight at a time)

Usage: dds_params.py STYLE check   list, get, describe, refuse a read-only and a mistyped
                                   set, set realtime_factor to 0.1 and see the pace follow
                                   (the serving loop's time against the wall clock) and the
                                   change on /parameter_events
       dds_params.py STYLE get NAME...

Loopback only, as dds_client.py (CYCLONEDDS_URI set by the caller). Prints one JSON line.
"""

import json
import os
import sys
import time
import types
from dataclasses import dataclass

from cyclonedds.domain import DomainParticipant
from cyclonedds.idl import IdlStruct
from cyclonedds.idl.types import float64, int64, sequence, uint8, uint64
from cyclonedds.pub import DataWriter
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic

from dds_client import RELIABLE, Control, Status, Time, fail


@dataclass
class ParameterValue(IdlStruct, typename="rcl_interfaces::msg::dds_::ParameterValue_"):
    type: uint8
    bool_value: bool
    integer_value: int64
    double_value: float64
    string_value: str
    byte_array_value: sequence[uint8]
    bool_array_value: sequence[bool]
    integer_array_value: sequence[int64]
    double_array_value: sequence[float64]
    string_array_value: sequence[str]


@dataclass
class Parameter(IdlStruct, typename="rcl_interfaces::msg::dds_::Parameter_"):
    name: str
    value: ParameterValue


@dataclass
class ParameterEvent(IdlStruct, typename="rcl_interfaces::msg::dds_::ParameterEvent_"):
    stamp: Time
    node: str
    new_parameters: sequence[Parameter]
    changed_parameters: sequence[Parameter]
    deleted_parameters: sequence[Parameter]


@dataclass
class SetParametersResult(IdlStruct, typename="rcl_interfaces::msg::dds_::SetParametersResult_"):
    successful: bool
    reason: str


@dataclass
class FloatingPointRange(IdlStruct, typename="rcl_interfaces::msg::dds_::FloatingPointRange_"):
    from_value: float64
    to_value: float64
    step: float64


@dataclass
class IntegerRange(IdlStruct, typename="rcl_interfaces::msg::dds_::IntegerRange_"):
    from_value: int64
    to_value: int64
    step: uint64


@dataclass
class ParameterDescriptor(IdlStruct, typename="rcl_interfaces::msg::dds_::ParameterDescriptor_"):
    name: str
    type: uint8
    description: str
    additional_constraints: str
    read_only: bool
    dynamic_typing: bool
    floating_point_range: sequence[FloatingPointRange]
    integer_range: sequence[IntegerRange]


@dataclass
class ListParametersResult(IdlStruct, typename="rcl_interfaces::msg::dds_::ListParametersResult_"):
    names: sequence[str]
    prefixes: sequence[str]


@dataclass
class Identity(IdlStruct, typename="passerby_test::Identity"):
    """rmw_cyclonedds_cpp's request header: half the client's GUID, a sequence number."""
    guid: uint64
    seq: int64


# Each service's request and reply, in both framings (the Cyclone one with the identity first).
FIELDS = {
    "list_parameters": ("ListParameters", [("prefixes", sequence[str]), ("depth", uint64)],
                        [("result", ListParametersResult)]),
    "get_parameters": ("GetParameters", [("names", sequence[str])],
                       [("values", sequence[ParameterValue])]),
    "describe_parameters": ("DescribeParameters", [("names", sequence[str])],
                            [("descriptors", sequence[ParameterDescriptor])]),
    "set_parameters": ("SetParameters", [("parameters", sequence[Parameter])],
                       [("results", sequence[SetParametersResult])]),
}


def struct(typename, fields):
    """An IDL struct type made at run time (one per framing and direction)."""
    body = lambda ns: ns.update({"__annotations__": dict(fields)})
    cls = types.new_class(typename.replace(":", "_"), (IdlStruct,), {"typename": typename}, body)
    return dataclass(cls)


class Services:
    def __init__(self, dp, style):
        self.dp, self.cyclone, self.seq = dp, style == "cyclone", 0
        self.endpoints = {}
        for service, (srv, request, reply) in FIELDS.items():
            head = [("identity", Identity)] if self.cyclone else []
            rq = struct(f"rcl_interfaces::srv::dds_::{srv}_Request_", head + request)
            rr = struct(f"rcl_interfaces::srv::dds_::{srv}_Response_", head + reply)
            writer = DataWriter(dp, Topic(dp, f"rq/passerby/{service}Request", rq), qos=RELIABLE)
            reader = DataReader(dp, Topic(dp, f"rr/passerby/{service}Reply", rr), qos=RELIABLE)
            self.endpoints[service] = (rq, writer, reader)
        deadline = time.monotonic() + 60
        while not all(w.get_matched_subscriptions() and r.get_matched_publications()
                      for _, w, r in self.endpoints.values()):
            if time.monotonic() > deadline:
                fail("the parameter services were not found")
            time.sleep(0.05)

    def call(self, service, *args):
        rq, writer, reader = self.endpoints[service]
        self.seq += 1
        head = [Identity(0x1234_5678_9abc_def0, self.seq)] if self.cyclone else []
        writer.write(rq(*head, *args))
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            for reply in reader.take(N=10):
                if not self.cyclone or reply.identity.seq == self.seq:
                    return reply
            time.sleep(0.005)
        fail(f"{service}: no reply")


def plain(value):
    return {1: value.bool_value, 2: value.integer_value, 3: value.double_value,
            4: value.string_value}.get(value.type)


def number(v):
    if isinstance(v, bool):
        return ParameterValue(1, v, 0, 0.0, "", [], [], [], [], [])
    if isinstance(v, int):
        return ParameterValue(2, False, v, 0.0, "", [], [], [], [], [])
    if isinstance(v, float):
        return ParameterValue(3, False, 0, v, "", [], [], [], [], [])
    return ParameterValue(4, False, 0, 0.0, v, [], [], [], [], [])


class Clock:
    """The served world's simulated time, as its serving loop answers a `resume` request on
    /passerby/control (at once, not behind the published steps a slow build queues)."""

    def __init__(self, dp):
        self.control = DataWriter(dp, Topic(dp, "rt/passerby/control", Control), qos=RELIABLE)
        self.status = DataReader(dp, Topic(dp, "rt/passerby/status", Status), qos=RELIABLE)
        self.id = 1000
        deadline = time.monotonic() + 60
        while not (self.control.get_matched_subscriptions() and self.status.get_matched_publications()):
            if time.monotonic() > deadline:
                fail("/passerby/control was not found")
            time.sleep(0.05)

    def now(self):
        self.id += 1
        self.control.write(Control("resume", 0, self.id, [], []))
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            for s in self.status.take(N=10):
                if s.id == self.id:
                    return time.monotonic(), s.time
            time.sleep(0.002)
        fail("no answer on /passerby/status")

    def pace(self, seconds):
        """Simulated seconds per wall second over `seconds`."""
        (w0, s0) = self.now()
        time.sleep(seconds)
        (w1, s1) = self.now()
        return (s1 - s0) / (w1 - w0)


def check(dp, services):
    out = {}
    out["names"] = list(services.call("list_parameters", [], 0).result.names)
    values = services.call("get_parameters", ["realtime_factor", "lockstep", "nope"]).values
    out["values"] = [[v.type, plain(v)] for v in values]
    d = services.call("describe_parameters", ["seed", "realtime_factor"]).descriptors
    out["described"] = [[x.name, x.type, x.read_only, [[r.from_value, r.to_value] for r in x.floating_point_range]] for x in d]
    refused = services.call("set_parameters", [Parameter("seed", number(5)),
                                               Parameter("realtime_factor", number("fast"))]).results
    out["refused"] = [[r.successful, r.reason] for r in refused]
    events = DataReader(dp, Topic(dp, "rt/parameter_events", ParameterEvent), qos=RELIABLE)
    clock = Clock(dp)
    while not events.get_matched_publications():
        time.sleep(0.05)
    out["pace_before"] = clock.pace(2.0)
    done = services.call("set_parameters", [Parameter("realtime_factor", number(0.1))]).results
    out["set"] = [[r.successful, r.reason] for r in done]
    out["pace_after"] = clock.pace(3.0)
    out["events"] = [[p.name, plain(p.value)] for e in events.take(N=100) if e.node == "/passerby"
                     for p in e.changed_parameters]
    print(json.dumps(out))


def main():
    style, mode = sys.argv[1], sys.argv[2]
    dp = DomainParticipant(int(os.environ.get("ROS_DOMAIN_ID", "0")))
    services = Services(dp, style)
    if mode == "check":
        check(dp, services)
    elif mode == "get":
        values = services.call("get_parameters", sys.argv[3:]).values
        print(json.dumps({"values": [plain(v) for v in values]}))
    else:
        fail(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
