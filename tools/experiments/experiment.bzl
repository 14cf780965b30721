"""experiment(): one measurement of tools/experiments, its launcher and its smoke test.

    experiment(
        name = "vs_chromium",            # runs tools/experiments/vs_chromium.py
        smoke_args = ["--runs", "1"],    # a short run for the test
        smoke_check = "vs_chromium_smoke_check.py",  # python3 CHECK OUT_DIR fails on bad output
    )

makes `bazel run //tools/experiments:NAME -- [ARGS]` (the .py gets --fetch, --testserver,
--netem, --world and --certbundle from the runfiles, see run_experiment.sh) and
NAME_smoke_test (exclusive: experiments time round trips).
"""

_BINARIES = [
    "//tools/certbundle",
    "//tools/fetch",
    "//tools/netem",
    "//tools/testserver",
    "//tools/world",
]

def experiment(name, smoke_args, smoke_check, data = [], smoke_tags = []):
    native.sh_binary(
        name = name,
        srcs = ["run_experiment.sh"],
        data = [
            name + ".py",
            "exp_common.py",
        ] + data + _BINARIES,
    )
    native.sh_test(
        name = name + "_smoke_test",
        size = "medium",
        srcs = ["experiment_smoke_test.sh"],
        args = [name, "tools/experiments/" + smoke_check] + smoke_args,
        data = [
            ":" + name,
            smoke_check,
        ],
        tags = [
            "exclusive",
            "integration",
            "local",
        ] + smoke_tags,
    )
