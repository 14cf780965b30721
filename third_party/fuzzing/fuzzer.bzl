"""netstack_fuzzer: a fuzz target beside its parser.

Declares NAME_lib (the LLVMFuzzerTestOneInput source) and NAME_smoke_test,
which runs it under the gcc smoke driver over its seeds plus 20,000
deterministic mutations. tools/fuzz.sh builds the same source with clang's
libFuzzer and AddressSanitizer for real coverage-guided runs.
"""

def netstack_fuzzer(name, srcs, deps = [], seeds = [], data = []):
    native.cc_library(
        name = name + "_lib",
        testonly = True,
        srcs = srcs,
        deps = deps,
        alwayslink = True,
    )
    native.cc_test(
        name = name + "_smoke_test",
        size = "small",
        args = ["$(location %s)" % s for s in seeds],
        data = seeds + data,
        deps = [
            ":" + name + "_lib",
            "//third_party/fuzzing:fuzz_smoke_main",
        ],
    )
