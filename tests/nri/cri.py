#!/usr/bin/env python3
"""A minimal CRI client (Debian has no crictl): runs a pod sandbox and a
container in it through containerd's CRI service, with python3-grpcio and
the message classes protoc makes from cri.proto (in PYTHONPATH).

usage: cri.py SOCKET run POD-NAME CGROUP-PARENT IMAGE [ANNOTATIONS-JSON]
         prints "SANDBOX-ID CONTAINER-ID"; on failure the CRI error, exit 1
       cri.py SOCKET rm SANDBOX-ID
"""
import json
import sys

import grpc
import cri_pb2 as pb

SVC = "/runtime.v1.RuntimeService/"


def call(ch, method, req, resp):
    return ch.unary_unary(SVC + method, request_serializer=lambda m: m.SerializeToString(),
                          response_deserializer=resp.FromString)(req, timeout=60)


def main():
    sock, verb = sys.argv[1], sys.argv[2]
    ch = grpc.insecure_channel("unix://" + sock)
    try:
        if verb == "rm":
            sid = sys.argv[3]
            call(ch, "StopPodSandbox", pb.StopPodSandboxRequest(pod_sandbox_id=sid),
                 pb.StopPodSandboxResponse)
            call(ch, "RemovePodSandbox", pb.RemovePodSandboxRequest(pod_sandbox_id=sid),
                 pb.RemovePodSandboxResponse)
            return 0
        name, parent, image = sys.argv[3:6]
        ann = json.loads(sys.argv[6]) if len(sys.argv) > 6 else {}
        sb = pb.PodSandboxConfig(
            metadata=pb.PodSandboxMetadata(name=name, uid=name + "-uid", namespace="default"),
            annotations=ann,
            # The host's network: no CNI plugin needed for this test.
            linux=pb.LinuxPodSandboxConfig(
                cgroup_parent=parent,
                security_context=pb.LinuxSandboxSecurityContext(
                    namespace_options=pb.NamespaceOption(network=pb.NODE))))
        sid = call(ch, "RunPodSandbox", pb.RunPodSandboxRequest(config=sb),
                   pb.RunPodSandboxResponse).pod_sandbox_id
        print(sid, end=" ", flush=True)
        cfg = pb.ContainerConfig(metadata=pb.ContainerMetadata(name="app"),
                                 image=pb.ImageSpec(image=image),
                                 command=["/bin/sleep", "600"], annotations=ann)
        cid = call(ch, "CreateContainer", pb.CreateContainerRequest(
            pod_sandbox_id=sid, config=cfg, sandbox_config=sb), pb.CreateContainerResponse).container_id
        print(cid, flush=True)
        call(ch, "StartContainer", pb.StartContainerRequest(container_id=cid),
             pb.StartContainerResponse)
    except grpc.RpcError as e:
        print(f"\nCRI error: {e.code().name}: {e.details()}")
        return 1
    return 0


sys.exit(main())
