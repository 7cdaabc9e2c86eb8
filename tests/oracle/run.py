"""Runs the oracle: oracle_driver draws and evaluates programs, check.py compares them with NumPy and
PyTorch, and each failure is minimized into a short program. Needs only python3's standard
library itself; the peers run in --python (bench/.venv, `bash bench/setup_peers.sh`).

  python3 run.py --driver build/tests/oracle/oracle_driver --python bench/.venv/bin/python \
      --seeds 1-300 --work /tmp/oracle            # the default ctest run
      --seed-file tests/oracle/long_run_seeds.txt  # the long run (ctest -L long)
  python3 run.py ... --minimize PROGRAM.txt        # minimize one failing program
  python3 run.py ... --grads --seeds 1-100         # gradient programs against torch.autograd
  python3 run.py ... --programs tests/oracle/regressions  # fixed programs, each at every width

Exit 0 when every program matched, 1 on a failure (each printed with its minimized program), 77
when --python cannot import numpy and torch (ctest reports the test skipped, not passed).
Seeds run in chunks, each chunk at one of the vector widths 512, 256, 128 and 2 or 1 threads;
--jobs N runs N chunks at once, --resume keeps --work and runs only the seeds without a result.
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
import ast

HERE = os.path.dirname(os.path.abspath(__file__))
WIDTHS = [('512', '2'), ('256', '1'), ('128', '2'), ('512', '1'), ('256', '2'), ('128', '1')]
CHUNK = 25


def parse_seeds(args):
    if args.seeds:
        first, last = (int(v) for v in args.seeds.split('-'))
        return list(range(first, last + 1))
    with open(args.seed_file) as f:
        return [int(line.split('#')[0]) for line in f if line.split('#')[0].strip()]


def environment(width, threads):
    env = dict(os.environ)
    env.update({'VECTOR_BITS': width, 'TENSORJIT_THREADS': threads, 'TENSORJIT_LOG': 'error'})
    return env


def run_chunk(driver, folder, seeds, width, threads, command='batch'):
    """Runs the seeds; a seed whose program crashed the driver gets a .error and the rest run on."""
    todo = list(seeds)
    while todo:
        result = subprocess.run([driver, command, folder] + [str(s) for s in todo], env=environment(width, threads),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        done = [s for s in todo if os.path.exists(os.path.join(folder, f'{s}.npz')) or os.path.exists(os.path.join(folder, f'{s}.error'))]
        if result.returncode == 0:
            return
        crashed = next((s for s in todo if s not in done), None)
        if crashed is None:
            return
        with open(os.path.join(folder, f'{crashed}.error'), 'w') as f:
            f.write(f'crash: the driver died (exit {result.returncode}) at VECTOR_BITS={width} TENSORJIT_THREADS={threads}: '
                    f'{result.stderr.strip()[-400:]}\n')
        todo = todo[todo.index(crashed) + 1:]


def check(python, target, checker='check.py', counts=None):
    result = subprocess.run([python, os.path.join(HERE, checker)] + target, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=HERE)
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith('{')]
    failures = [f for f in lines if 'counts' not in f]
    if counts is not None:
        for f in lines:
            counts.update(f.get('counts', {}))
    if result.returncode not in (0, 1) or (result.returncode == 1 and not failures):
        failures.append({'kind': 'checker', 'message': result.stderr.strip()[-2000:]})
    return failures


def signature(failure):
    return (failure.get('kind', 'value'), failure.get('op'))


def value_types(npz):
    """{name: (dtype, shape)} of the v_ arrays of a driver's .npz, read from the .npy headers."""
    names = {'<f4': 'f32', '<f8': 'f64', '<i4': 'i32', '<i8': 'i64', '|b1': 'bool', '<f2': 'f16'}
    types = {}
    with zipfile.ZipFile(npz) as archive:
        for member in archive.namelist():
            if member.startswith('v_'):
                with archive.open(member) as f:
                    head = f.read(512).decode('latin1')
                header = ast.literal_eval(head[head.index('{'):head.index('}') + 1])
                types[member[2:-4]] = (names[header['descr']], header['shape'])
        for member in archive.namelist():  # a bf16 value saved as its f32
            if member.startswith('bf16_') and member[5:-4] in types:
                types[member[5:-4]] = ('bf16', types[member[5:-4]][1])
    return types


class Minimizer:
    """Delta debugging over statements: drop outputs and statements, turn operands into fresh
    inputs, make inputs contiguous, as long as the program still fails the same way."""

    def __init__(self, driver, python, width, threads):
        self.driver, self.python, self.env = driver, python, environment(width, threads)
        self.folder = tempfile.mkdtemp(prefix='tensorjit-oracle-min-')

    def fails(self, lines, wanted):
        program = os.path.join(self.folder, 'program.txt')
        out = os.path.join(self.folder, 'out.npz')
        if os.path.exists(out):
            os.remove(out)
        with open(program, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        result = subprocess.run([self.driver, 'run', program, out], env=self.env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        if result.returncode < 0 or result.returncode not in (0, 2, 3):
            return wanted[0] == 'crash'
        if result.returncode == 3:
            return False
        if result.returncode == 2:
            return wanted[0] == 'error'
        return any(signature(f) == wanted for f in check(self.python, [program, out]))

    def minimize(self, text, failure, npz=None):
        wanted = signature(failure)
        lines = [l for l in text.splitlines() if l.strip()]
        types = value_types(npz) if npz and os.path.exists(npz) else {}
        if failure.get('statement') and wanted[0] != 'fused':
            candidate = [l for l in lines if not l.startswith('out ')] + ['out ' + failure['statement']]
            if self.fails(candidate, wanted):
                lines = candidate
        changed = True
        while changed:
            changed = False
            for i in reversed(range(len(lines))):  # drop a line
                candidate = lines[:i] + lines[i + 1:]
                if candidate and any(l.startswith('out ') for l in candidate) and self.fails(candidate, wanted):
                    lines, changed = candidate, True
            for i, line in enumerate(lines):  # a statement replaced by an input of its dtype and shape
                name = line.split()[0]
                if ' = input ' in line or line.startswith('out ') or name not in types:
                    continue
                dtype, shape = types[name]
                values = {'bool': 'bits', 'i32': 'small', 'i64': 'small'}.get(dtype, 'normal')
                candidate = lines[:i] + [f'{name} = input dtype={dtype} layout=contiguous seed=1 '
                                         f'shape={",".join(str(e) for e in shape)} values={values}'] + lines[i + 1:]
                if self.fails(candidate, wanted):
                    lines, changed = candidate, True
            for i, line in enumerate(lines):  # an input laid out plainly
                if ' = input ' in line and 'layout=contiguous' not in line:
                    candidate = lines[:i] + [' '.join(w if not w.startswith('layout=') else 'layout=contiguous'
                                                      for w in line.split())] + lines[i + 1:]
                    if self.fails(candidate, wanted):
                        lines, changed = candidate, True
        shutil.rmtree(self.folder, ignore_errors=True)
        return '\n'.join(lines)


def run_programs(args):
    """Each fixed program of args.programs (regressions/: failures the random runs found, kept)
    run at every width and thread count of WIDTHS and checked; 1 when any failed."""
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    programs = sorted(f for f in os.listdir(args.programs) if f.endswith('.txt'))
    failures = []
    for name in programs:
        for width, threads in WIDTHS:
            stem = os.path.join(args.work, f'{name[:-4]}.{width}x{threads}')
            shutil.copyfile(os.path.join(args.programs, name), stem + '.txt')
            result = subprocess.run([args.driver, 'run', stem + '.txt', stem + '.npz'], env=environment(width, threads),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if result.returncode != 0:
                failures.append({'program': stem + '.txt', 'kind': 'error' if result.returncode in (2, 3) else 'crash',
                                 'message': f'oracle_driver run exited {result.returncode}: {result.stderr.strip()[-400:]}'})
                os.remove(stem + '.txt')  # check.py below reads only the programs that ran
    failures += check(args.python, [args.work])
    print(f'oracle: {len(programs)} fixed programs of {args.programs}, each at {len(WIDTHS)} widths and thread counts; '
          f'{len(failures)} failures')
    for failure in failures:
        print('FAIL', json.dumps(failure))
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--driver', required=True)
    parser.add_argument('--python', required=True)
    parser.add_argument('--seeds')
    parser.add_argument('--seed-file')
    parser.add_argument('--work', default=os.path.join(tempfile.gettempdir(), 'tensorjit-oracle'))
    parser.add_argument('--minimize', help='a failing program to minimize')
    parser.add_argument('--programs', help='a folder of fixed programs (regressions/) to run at every width and check')
    parser.add_argument('--max-minimized', type=int, default=5)
    parser.add_argument('--jobs', type=int, default=1, help='chunks run at once (each one driver process)')
    parser.add_argument('--grads', action='store_true',
                        help='gradient programs (oracle_driver grad_batch) against torch.autograd (check_grad.py)')
    parser.add_argument('--resume', action='store_true',
                        help='keep --work and run only the seeds without a result there (an interrupted long run)')
    args = parser.parse_args()
    # check.py runs in this folder (cwd=HERE): every path it is given must be absolute
    args.driver, args.python, args.work = (os.path.abspath(p) for p in (args.driver, args.python, args.work))
    if args.minimize:
        args.minimize = os.path.abspath(args.minimize)

    probe = subprocess.run([args.python, '-c', 'import numpy, torch'], capture_output=True) if os.path.exists(args.python) else None
    if probe is None or probe.returncode != 0:
        print(f'SKIPPED: {args.python} cannot import numpy and torch (bash bench/setup_peers.sh installs them), '
              'so the oracle did not run')
        return 77

    # Every op of the driver's table has a row in peer_ops.py and no row lacks its op: a new op
    # joins both tables (the differentiable ones also differentiable_ops() and GRAD_OPS).
    for listing, table in (('ops', 'OPS'), ('grad_ops', 'GRAD_OPS')):
        ours = set(subprocess.run([args.driver, listing], capture_output=True, text=True, check=True).stdout.split())
        rows = set(subprocess.run([args.python, '-c', f'import peer_ops; print(*peer_ops.{table})'], capture_output=True,
                                  text=True, check=True, cwd=HERE).stdout.split())
        if ours != rows:
            print(f'oracle: `oracle_driver {listing}` without a row in peer_ops.{table}: {sorted(ours - rows)}; '
                  f'rows without an op: {sorted(rows - ours)}')
            return 1

    if args.minimize:
        with open(args.minimize) as f:
            text = f.read()
        npz = args.minimize[:-4] + '.npz'
        failures = check(args.python, [args.minimize, npz]) if os.path.exists(npz) else []
        failure = failures[0] if failures else {'kind': 'crash'}
        print(Minimizer(args.driver, args.python, *WIDTHS[0]).minimize(text, failure, args.minimize[:-4] + '.npz'))
        return 0
    if args.programs:
        return run_programs(args)

    seeds = parse_seeds(args)
    if not args.resume:
        shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work, exist_ok=True)

    def finished(seed):
        return any(os.path.exists(os.path.join(args.work, f'{seed}{end}')) for end in ('.npz', '.error'))

    started = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for c in range(0, len(seeds), CHUNK):
            width, threads = WIDTHS[(c // CHUNK) % len(WIDTHS)]
            todo = [s for s in seeds[c:c + CHUNK] if not (args.resume and finished(s))]
            if todo:
                pool.submit(run_chunk, args.driver, args.work, todo, width, threads,
                            'grad_batch' if args.grads else 'batch')
    ran = time.time() - started
    counts = {}
    failures = check(args.python, [args.work], 'check_grad.py' if args.grads else 'check.py', counts)
    checked = time.time() - started - ran

    statements, ops = 0, set()
    for s in seeds:
        with open(os.path.join(args.work, f'{s}.txt')) as f:
            for line in f:
                words = line.split()
                if len(words) > 2 and words[1] == '=' and words[2] != 'input':
                    statements += 1
                    ops.add(words[2])
    kind = f'gradient programs ({counts.get("checked", 0)} checked, {counts.get("skipped", 0)} skipped: not finite in f64)' \
        if args.grads else 'programs'
    print(f'oracle: {len(seeds)} {kind}, {statements} statements over {len(ops)} ops; '
          f'{len(failures)} failures; driver {ran:.1f} s, check {checked:.1f} s')
    by_program = {}
    for failure in failures:
        print('FAIL', json.dumps(failure))
        by_program.setdefault(failure.get('program'), failure)
    for program, failure in list(by_program.items())[:0 if args.grads else args.max_minimized]:
        if not program:
            continue
        seed = int(os.path.basename(program)[:-4])
        width, threads = WIDTHS[(seeds.index(seed) // CHUNK) % len(WIDTHS)]
        with open(program) as f:
            text = f.read()
        short = Minimizer(args.driver, args.python, width, threads).minimize(text, failure, program[:-4] + '.npz')
        print(f'\nminimized {program} (VECTOR_BITS={width} TENSORJIT_THREADS={threads}, '
              f'{failure.get("kind", "value")} of {failure.get("op")}):\n{short}\n')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
