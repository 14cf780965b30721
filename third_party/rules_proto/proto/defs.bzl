"""Offline stand-in for rules_proto: native proto_library and proto_lang_toolchain."""

def proto_library(**attrs):
    native.proto_library(**attrs)

def proto_lang_toolchain(**attrs):
    native.proto_lang_toolchain(**attrs)
