"""A minimal editor client for Stanley, written from docs/editors.md: it finds (or starts) the
repository's daemon, checks the socket is the user's, connects with a default `unix:` channel,
checks health and the protocol version, sends a request and shows its progress and typed
findings, cancels a second request, and reports a refused call. No generated stubs: the
messages come from the daemon's reflection service.

    python3 client.py <repository root> "<request>"

Prints one JSON object describing what it saw (the CI test reads it)."""

import json
import os
import socket
import stat
import struct
import subprocess
import sys
import time

import grpc
from google.protobuf import descriptor_pool, message_factory
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

PROTOCOL_VERSION = 1


def daemon_socket(root):
    """The socket daemon.json names, or None when no daemon recorded itself."""
    try:
        with open(os.path.join(root, ".stanley", "daemon", "daemon.json")) as f:
            return json.load(f)["socket"]
    except (OSError, ValueError, KeyError):
        return None


def check_ownership(path):
    """docs/editors.md step 1: the folder and the socket are the user's, and so is the peer."""
    uid = os.getuid()
    folder = os.lstat(os.path.dirname(path))
    if not stat.S_ISDIR(folder.st_mode) or folder.st_uid != uid or folder.st_mode & 0o077:
        raise RuntimeError(f"unsafe socket folder: {os.path.dirname(path)}")
    sock = os.lstat(path)
    if not stat.S_ISSOCK(sock.st_mode) or sock.st_uid != uid:
        raise RuntimeError(f"unsafe socket: {path}")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)
        creds = probe.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        _pid, peer_uid, _gid = struct.unpack("3i", creds)
        if peer_uid != uid:
            raise RuntimeError(f"the daemon at {path} belongs to uid {peer_uid}")
    finally:
        probe.close()


class Stanley:
    def __init__(self, path):
        self.channel = grpc.insecure_channel("unix:" + path)  # no channel options
        self.pool = descriptor_pool.DescriptorPool(ProtoReflectionDescriptorDatabase(self.channel))

    def message(self, name, **fields):
        return message_factory.GetMessageClass(self.pool.FindMessageTypeByName(name))(**fields)

    def method(self, full_name, streaming=False):
        method = self.pool.FindMethodByName(full_name)
        output = message_factory.GetMessageClass(method.output_type)
        path = "/" + full_name.rsplit(".", 1)[0] + "/" + method.name
        make = self.channel.unary_stream if streaming else self.channel.unary_unary
        return make(path, request_serializer=lambda m: m.SerializeToString(),
                    response_deserializer=output.FromString)

    def status(self):
        return self.method("stanley.v1.Stanley.GetStatus")(
            self.message("stanley.v1.GetStatusRequest", client_protocol_version=PROTOCOL_VERSION,
                         client_version="editor-example"), timeout=3)


def connect(root):
    """Finds the daemon, or starts one and waits for it (up to 10 s)."""
    path = daemon_socket(root)
    if path and os.path.exists(path):
        check_ownership(path)
        client = Stanley(path)
        try:
            client.status()
            return client, False
        except grpc.RpcError:
            pass
    subprocess.Popen(["stanleyd", "--root", root], start_new_session=True,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        path = daemon_socket(root)
        if path and os.path.exists(path):
            try:
                check_ownership(path)
                client = Stanley(path)
                client.status()
                return client, True
            except (grpc.RpcError, OSError):
                pass
        time.sleep(0.1)
    raise RuntimeError("the daemon did not start within 10 s")


def main(root, request):
    seen = {}
    client, started = connect(root)
    seen["startedDaemon"] = started
    health = health_pb2_grpc.HealthStub(client.channel)
    seen["health"] = health_pb2.HealthCheckResponse.ServingStatus.Name(
        health.Check(health_pb2.HealthCheckRequest(service="stanley.v1.Stanley"), timeout=3).status)
    status = client.status()
    if status.protocol_version != PROTOCOL_VERSION:
        raise RuntimeError(f"daemon speaks protocol {status.protocol_version}; restart it")
    env = {k: v for k, v in os.environ.items() if k.startswith(("TYPESAFE_", "STANLEY_")) or k in ("PATH", "HOME")}
    prompt = client.method("stanley.v1.Stanley.Prompt", streaming=True)
    progress, result = [], None
    for event in prompt(client.message("stanley.v1.PromptRequest", request=request, env=env)):
        kind = event.WhichOneof("event")
        if kind == "progress":
            progress.append([event.progress.phase, event.progress.done, event.progress.total])
        elif kind == "result":
            result = event.result
    seen["progress"] = progress
    seen["exitCode"] = result.exit_code
    seen["workflow"] = result.workflow
    seen["findings"] = [{"label": f.label, "path": f.path, "lines": [f.start_line, f.end_line],
                         "severity": f.severity, "message": f.message} for f in result.findings]
    seen["coverage"] = {"candidates": result.coverage.candidates, "complete": result.coverage.complete}
    # Cancellation: close a second request's stream after its first event.
    call = prompt(client.message("stanley.v1.PromptRequest", request=request, env=env))
    next(call)
    call.cancel()
    seen["cancelled"] = True
    # A refused request (an empty one is a usage error) ends with a result whose error names it;
    # other calls are refused with a gRPC status naming the kind in its metadata.
    try:
        last = None
        for event in prompt(client.message("stanley.v1.PromptRequest", request="", env=env)):
            if event.WhichOneof("event") == "result":
                last = event.result
        seen["refused"] = ({"kind": last.error.kind, "message": last.error.message,
                            "exitCode": last.exit_code} if last and last.HasField("error") else None)
    except grpc.RpcError as e:
        kind = dict(e.trailing_metadata() or ()).get("stanley-error-kind")
        seen["refused"] = {"code": e.code().name, "kind": kind, "message": e.details()}
    print(json.dumps(seen))


if __name__ == "__main__":
    try:
        main(os.path.realpath(sys.argv[1]), sys.argv[2])
    except Exception as e:  # noqa: BLE001 - one line for any failure
        print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
        sys.exit(1)
