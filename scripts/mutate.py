#!/usr/bin/env python3
"""Planted faults: does the test suite catch a one-line bug?

Each fault of scripts/planted_faults.txt replaces one line of the code (matched as exact text, so
that a fault whose line moved or changed fails loudly instead of planting nothing) in a scratch git
worktree of HEAD, rebuilds it incrementally in its own build folder, runs the fault's bounded test
selection, records caught (a test failed, crashed or timed out) or survived, and restores the line.
Nothing is planted in the checkout the script runs from.

  python3 scripts/mutate.py                       # every fault; prints the table
  python3 scripts/mutate.py --only gemm-pack-tail # some faults, by id (comma-separated)
  python3 scripts/mutate.py --list                # the faults and their test selections
  python3 scripts/mutate.py --check               # only whether every fault's line is still there
  python3 scripts/mutate.py --only ID --suite tests_runtime --suite-args '-tc=*zeros*'
                                                  # one suite instead of the selection (a new test)

Options: --work DIR (the scratch worktree, default <this checkout>-mutate beside it; its build
folder is DIR/build-mutate; ccache's base folder is set to their common parent, so the first build
reuses this checkout's objects), --timeout S (per fault's tests, default 300), --jobs N (ninja, default 2).
Builds and tests run under `nice -n 10`. Exit status 0 when every fault was caught.

The fault file holds blocks of four lines, separated by blank lines ('#' lines are comments):

  fault <id> <selection>       selection: a name of SELECTIONS below
  file <path from the repository root>
  find <the line's exact text, leading blanks included after the one space>
  replace <the faulty line>
"""
import argparse
import os
import pathlib
import shlex
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
FAULTS = ROOT / "scripts" / "planted_faults.txt"

# What runs for a fault of each part of the code: the suites of its folder, the suites that
# exercise it through the runtime, and the differential fuzzer's CI list. Each entry is a target and
# its arguments, the likeliest to fail fast first; each run stops at its first failure, and the
# first failing entry ends the fault's run ("{tree}" is the scratch tree).
DIFFERENTIAL = ("differential_fuzz", ["--seed-list", "{tree}/tests/fuzz/differential_seeds_ci.txt", "--stop-at-first"])
STOP = ["--abort-after=1", "--no-skipped-summary"]
SELECTIONS = {
    "kernels": [("tests_kernels", STOP), DIFFERENTIAL, ("tests_runtime", STOP)],
    "codegen": [("tests_codegen", STOP), DIFFERENTIAL, ("tests_runtime", STOP)],
    "vector_math": [("tests_vector_math", STOP), ("tests_codegen", STOP), DIFFERENTIAL],
    "ir": [("tests_ir", STOP), DIFFERENTIAL, ("tests_runtime", STOP)],
    "runtime": [("tests_runtime", STOP), DIFFERENTIAL],
}


class Fault:
    def __init__(self, ident, selection, path, find, replace, line):
        self.ident, self.selection, self.path, self.find, self.replace, self.line = (
            ident, selection, path, find, replace, line)


def read_faults(path):
    faults, block = [], {}
    lines = path.read_text().splitlines()
    for number, text in enumerate(lines + [""], start=1):
        if text.startswith("#"):
            continue
        if not text.strip():
            if block:
                missing = {"fault", "file", "find", "replace"} - block.keys()
                if missing:
                    sys.exit(f"{path}:{number}: a fault block lacks {', '.join(sorted(missing))}")
                ident, _, selection = block["fault"].partition(" ")
                if selection not in SELECTIONS:
                    sys.exit(f"{path}:{number}: fault {ident}: unknown selection '{selection}'")
                faults.append(Fault(ident, selection, block["file"], block["find"], block["replace"], number))
                block = {}
            continue
        key, _, value = text.partition(" ")
        if key not in ("fault", "file", "find", "replace") or key in block:
            sys.exit(f"{path}:{number}: expected one each of fault/file/find/replace, got '{key}'")
        block[key] = value
    idents = [f.ident for f in faults]
    if len(set(idents)) != len(idents):
        sys.exit(f"{path}: fault ids repeat")
    return faults


def run(command, cwd, log, timeout=None):
    """Runs `command` niced, appending its output to `log`; returns the exit status (None: timeout,
    after which its whole process group is killed: the differential fuzzer's children too)."""
    with open(log, "a") as out:
        out.write(f"$ {' '.join(command)}\n")
        out.flush()
        process = subprocess.Popen(["nice", "-n", "10"] + command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        try:
            return process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.wait()
            out.write(f"timed out after {timeout:.0f} s\n")
            return None


def plant(work, fault):
    """Replaces the fault's line in the scratch tree; returns the original text to restore."""
    target = work / fault.path
    original = target.read_text()
    lines = original.split("\n")
    matches = [i for i, line in enumerate(lines) if line == fault.find]
    if len(matches) != 1:
        sys.exit(f"fault {fault.ident} (planted_faults.txt:{fault.line}): its line occurs {len(matches)} times "
                 f"in {fault.path}; update the fault to the code as it is now")
    lines[matches[0]] = fault.replace
    target.write_text("\n".join(lines))
    return original


def prepare(work, jobs, log):
    if not (work / ".git").exists():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(work), "HEAD"], check=True,
                       stdout=subprocess.DEVNULL)
    else:
        # -f: a run stopped midway may have left a fault planted.
        subprocess.run(["git", "-C", str(work), "checkout", "--detach", "-f", "-q",
                        subprocess.check_output(["git", "-C", str(ROOT), "rev-parse", "HEAD"], text=True).strip()],
                       check=True)
    build = work / "build-mutate"
    if not (build / "build.ninja").exists():
        env_cmd = ["cmake", "-S", str(work), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                   "-DTENSORJIT_BUILD_BENCH=OFF"]
        if run(env_cmd, work, log) != 0:
            sys.exit(f"configuring {build} failed: see {log}")
    targets = sorted({t for selection in SELECTIONS.values() for t, _ in selection})
    if run(["ninja", "-C", str(build), f"-j{jobs}"] + targets, work, log) != 0:
        sys.exit(f"the unplanted tree does not build: see {log}")
    return build, targets


def binary(build, target):
    found = [p for p in build.rglob(target) if p.is_file() and os.access(p, os.X_OK)]
    if len(found) != 1:
        sys.exit(f"expected one {target} under {build}, found {len(found)}")
    return found[0]


def try_fault(work, build, fault, jobs, timeout, log):
    """'caught' (and by what) or 'survived'."""
    original = plant(work, fault)
    try:
        deadline = time.monotonic() + timeout
        for target, arguments in SELECTIONS[fault.selection]:
            # Each target built only when its turn comes: a fault the first suite catches costs
            # no links of the others.
            if run(["ninja", "-C", str(build), f"-j{jobs}", target], work, log) != 0:
                return "caught", "the build"
            left = deadline - time.monotonic()
            if left <= 0:
                return "survived", "(time budget spent)"
            command = [str(binary(build, target))] + [a.format(tree=work) for a in arguments]
            status = run(command, work, log, timeout=left)
            if status is None:  # a hang and a slow run look alike here: not counted as caught
                return "survived", f"(budget spent in {target})"
            if status != 0:
                return "caught", target
        return "survived", ""
    finally:
        (work / fault.path).write_text(original)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", default=str(ROOT.parent / (ROOT.name + "-mutate")))
    parser.add_argument("--timeout", type=int, default=300)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", default="")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--suite", default="", help="run this test target instead of the fault's selection")
    parser.add_argument("--suite-args", default="", help="its arguments (one string, split as a shell would)")
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip the check that every selection passes unplanted (when run elsewhere)")
    args = parser.parse_args()
    faults = read_faults(FAULTS)
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {f.ident for f in faults}
        if unknown:
            sys.exit(f"no fault named {', '.join(sorted(unknown))}")
        by_id = {f.ident: f for f in faults}
        faults = [by_id[ident] for ident in args.only.split(",")]  # in the order asked
    if args.list:
        for f in faults:
            print(f"{f.ident:32} {f.selection:12} {f.path}")
        return 0
    if args.check:
        for f in faults:
            count = (ROOT / f.path).read_text().split("\n").count(f.find)
            if count != 1:
                sys.exit(f"fault {f.ident}: its line occurs {count} times in {f.path}")
        print(f"{len(faults)} faults, each line found once")
        return 0
    if args.suite:
        for selection in SELECTIONS:
            SELECTIONS[selection] = [(args.suite, STOP + shlex.split(args.suite_args))]
    work = pathlib.Path(args.work).resolve()
    if work == ROOT or ROOT in work.parents:
        sys.exit("--work must be a scratch folder outside this checkout")
    os.environ.setdefault("CCACHE_BASEDIR", os.path.commonpath([str(ROOT), str(work)]))
    log = work.parent / (work.name + ".log")
    log.write_text("")
    build, _ = prepare(work, args.jobs, log)
    # Every selection must pass on the tree as it is, or a fault would be "caught" by a failure
    # that was there before it; once per commit (a stamp in the build folder).
    commit = subprocess.check_output(["git", "-C", str(work), "rev-parse", "HEAD"], text=True).strip()
    stamp = build / f"baseline-passed-{commit}"
    if not stamp.exists() and not args.no_baseline:
        for target, arguments in sorted({(t, tuple(a)) for selection in SELECTIONS.values() for t, a in selection}):
            command = [str(binary(build, target))] + [a.format(tree=work) for a in arguments]
            if run(command, work, log) != 0:
                sys.exit(f"{target} fails without a fault: see {log}")
        if not args.suite:
            stamp.write_text("")
        print("the unplanted tree passes every selection", flush=True)
    results = []
    for fault in faults:
        start = time.monotonic()
        verdict, by = try_fault(work, build, fault, args.jobs, args.timeout, log)
        results.append((fault, verdict, by, time.monotonic() - start))
        print(f"{fault.ident:32} {verdict:8} {by:28} {time.monotonic() - start:6.0f} s", flush=True)
    # Leave the tree built as it is in git, so that the next run's rebuilds stay incremental.
    run(["ninja", "-C", str(build), f"-j{args.jobs}"], work, log)
    caught = sum(1 for _, verdict, _, _ in results if verdict == "caught")
    print()
    print("| fault | part | file | caught by |")
    print("|---|---|---|---|")
    for fault, verdict, by, _ in results:
        print(f"| {fault.ident} | {fault.selection} | {fault.path} | {by if verdict == 'caught' else 'SURVIVED'} |")
    print(f"\n{caught} of {len(results)} faults caught ({100.0 * caught / max(1, len(results)):.0f}%); log: {log}")
    return 0 if caught == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
