"""A standard Python gRPC client with a default `unix:` channel (no channel options), as an
editor integration would write it: health for every service, reflection (grpcio-reflection
asks v1alpha), and GetStatus called through descriptors found by reflection. Prints one JSON
object with what it saw; any failure is printed as {"error": ...} and exits 1."""

import json
import sys

import grpc
from google.protobuf import descriptor_pool, message_factory
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)


def main(socket_path):
    channel = grpc.insecure_channel("unix:" + socket_path)
    health = health_pb2_grpc.HealthStub(channel)
    statuses = {}
    for service in ["", "stanley.v1.Stanley", "stanley.v1.Queue", "stanley.v1.Flows"]:
        reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=10)
        statuses[service] = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    database = ProtoReflectionDescriptorDatabase(channel)
    services = sorted(database.get_services())
    pool = descriptor_pool.DescriptorPool(database)
    method = pool.FindMethodByName("stanley.v1.Stanley.GetStatus")
    request_class = message_factory.GetMessageClass(method.input_type)
    response_class = message_factory.GetMessageClass(method.output_type)
    call = channel.unary_unary(
        "/stanley.v1.Stanley/GetStatus",
        request_serializer=request_class.SerializeToString,
        response_deserializer=response_class.FromString,
    )
    status = call(request_class(client_protocol_version=1, client_version="python-test"), timeout=10)
    print(json.dumps({
        "health": statuses,
        "services": services,
        "protocolVersion": status.protocol_version,
        "root": status.root,
    }))


if __name__ == "__main__":
    try:
        main(sys.argv[1])
    except Exception as e:  # noqa: BLE001 - report any failure as one line
        print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
        sys.exit(1)
