"""The repositories netstack's BUILD files name, for another workspace that depends on it.

    local_repository(name = "netstack", path = "path/to/netstack")
    load("@netstack//:netstack_deps.bzl", "netstack_dependencies")
    netstack_dependencies(netstack_path = "path/to/netstack")

Everything comes from Debian packages installed by netstack's tools/setup.sh (BoringSSL's
headers from android-libboringssl-dev, protoc and libprotobuf, and so on): nothing is
downloaded, as in netstack's own WORKSPACE, which calls this too. The rules_* stand-ins must
be defined before Bazel's WORKSPACE suffix declares them as downloads, so call this early.
"""

def netstack_dependencies(netstack_path):
    """Defines netstack's external repositories.

    Args:
      netstack_path: netstack's directory, as the calling WORKSPACE's local_repository gives it
        ("." in netstack's own WORKSPACE).
    """
    for name in ["rules_cc", "rules_java", "rules_proto", "remote_coverage_tools"]:
        native.local_repository(
            name = name,
            path = netstack_path + "/third_party/" + name,
        )

    # BoringSSL from Debian's android-libboringssl-dev: only its headers on the include path,
    # ahead of the system directories, so no target sees OpenSSL 3's /usr/include/openssl.
    native.new_local_repository(
        name = "boringssl",
        build_file = str(Label("//third_party/boringssl:boringssl.BUILD")),
        path = "/usr/include/android",
    )

    # protoc and the protobuf runtime from Debian, under the name the native proto rules use.
    native.new_local_repository(
        name = "com_google_protobuf",
        build_file = str(Label("//third_party/protobuf:protobuf.BUILD")),
        path = "/usr/bin",
    )

    # llhttp from Debian's node-llhttp: test-only (//net/http:http_llhttp_comparison_test).
    native.new_local_repository(
        name = "llhttp",
        build_file = str(Label("//third_party/llhttp:llhttp.BUILD")),
        path = "/usr/share/llhttp",
    )
    native.new_local_repository(
        name = "llhttp_headers",
        build_file = str(Label("//third_party/llhttp:llhttp_headers.BUILD")),
        path = "/usr/share/include/llhttp",
    )
