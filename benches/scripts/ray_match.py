#!/usr/bin/env python3
"""Spread a `supernova match` or a `supernova train` generation's self-play
over the workers of a Ray cluster.

    ray_match.py match [--address ADDR] [--workers N] [--batch B] --out DIR -- MATCH ARGUMENTS
    ray_match.py selfplay [--address ADDR] [--workers N] --dir DIR -- TRAIN ARGUMENTS

Without --address the driver starts a local cluster of --workers CPUs and
stops it at the end; with one (`ray://host:10001` or `host:6379`, as
`ray start --head` prints it) it joins that cluster. Every worker node needs
the `supernova` binary (--binary, the same path everywhere), the openings
file at the same path if the match names one, and Python with the same
`ray` version.

match: the arguments after `--` are those of `supernova match`, with
--games. The game numbers are cut into batches of --batch; each batch is
one Ray task that runs `supernova match ... --games-list BATCH` on a worker
and streams back each game's results file and record as it finishes. They
land in DIR/copy-K/ (one folder per task), and `supernova match --merge`
over them prints the match's closing lines: the statistics stay in Rust.
With --sprt, the merge runs after every game and the driver cancels every
task once it decides. A task whose worker dies loses only its unfinished
games, which go back into the queue; a game that arrives twice counts once
(the merge checks that the copies agree). Every game is stamped with the
bench signature of --binary (`supernova bench`, run once here).

selfplay: the arguments after `--` are those of `supernova train` (with
--generations and --games; not --dir). For each generation the driver
hands each worker one self-play file (`--self-play-files F`, 64 games,
with the run's best.net), collects the files into DIR, and fits here
(`supernova train --dir DIR --external-gate`, which finds the files
played). That command then names the gate's next batch as the arguments
of a `supernova match`; the driver plays it over the workers (as `match`
does, into DIR/gen-NNN/gate-BB/driver-K/) and asks the command again after
every game that arrives, until it writes the generation's gate.txt (the
verdict and its statistics are Rust's), and then cancels the batch's
tasks. Each self-play game's seed depends only on --seed, the generation
and the game's number, and node-limited gate games are deterministic, so
the run is the one-machine run.

The network files an engine loads (`option.EvalFile=PATH`) are read by the
driver and travel with each task, written on the worker.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import ray

DEFAULT_BINARY = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "target", "release", "supernova"
)


def die_with_parent():
    """Ends the child (supernova) when the Ray worker running it dies."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def network_files(arguments):
    """The network files the engines load (`option.EvalFile=PATH` words):
    {path: text}, read here to travel with every task."""
    files = {}
    for word in arguments:
        name, _, path = word.partition("=")
        if name.lower() == "option.evalfile" and os.path.isfile(path):
            with open(path) as network:
                files[path] = network.read()
    return files


def with_local_files(arguments, files, work):
    """Writes `files` into `work` and names them there in `arguments`."""
    local = {}
    for index, (path, text) in enumerate(sorted(files.items())):
        local[path] = os.path.join(work, f"network-{index}.net")
        with open(local[path], "w") as network:
            network.write(text)
    changed = []
    for word in arguments:
        name, _, path = word.partition("=")
        changed.append(f"{name}={local[path]}" if name.lower() == "option.evalfile" and path in local else word)
    return changed


@ray.remote(num_cpus=1, max_retries=0, num_returns="streaming")
def play_batch(binary, arguments, numbers, files):
    """Plays the games `numbers` of the match, its engines' network files
    (`files`) written on the worker; yields ("started", pid) and then
    (number, results line, record) for each game as it finishes."""
    yield ("started", os.getpid())
    work = tempfile.mkdtemp(prefix="ray_match-")
    try:
        os.makedirs(os.path.join(work, "networks"))
        arguments = with_local_files(arguments, files, os.path.join(work, "networks"))
        command = [binary, "match", *arguments, "--games-list", ",".join(map(str, numbers)),
                   "--results", work, "--pgnout", work]
        with open(os.path.join(work, "stderr.txt"), "w") as errors:
            process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors,
                                       preexec_fn=die_with_parent)
        sent = set()
        while True:
            finished = process.poll() is not None
            for name in sorted(os.listdir(work)):
                match = re.fullmatch(r"game-(\d+)\.result", name)
                if match and name not in sent:
                    sent.add(name)
                    with open(os.path.join(work, name)) as result:
                        line = result.read()
                    record_path = os.path.join(work, name[:-len(".result")] + ".sdg")
                    with open(record_path) as record:
                        yield (int(match.group(1)), line, record.read())
            if finished:
                break
            time.sleep(0.1)
        if process.returncode != 0:
            with open(os.path.join(work, "stderr.txt")) as errors:
                raise RuntimeError(f"supernova match exited with {process.returncode}: {errors.read()}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def take_option(arguments, name, count):
    """Removes `name` and its `count` values from `arguments`; returns them."""
    if name not in arguments:
        return None
    index = arguments.index(name)
    values = arguments[index + 1:index + 1 + count]
    del arguments[index:index + 1 + count]
    return values


def bench_signature(binary):
    """The bench signature of `binary`, from one run of `supernova bench`."""
    output = subprocess.run([binary, "bench"], capture_output=True, text=True, check=True).stdout
    found = re.search(r"Signature: ([0-9a-f]+)", output)
    if not found:
        sys.exit(f"ray_match: no signature in the output of {binary} bench")
    return found.group(1)


def merge(binary, out, sprt):
    """Runs `supernova match --merge` over the copies in `out`; returns its output."""
    copies = sorted(os.path.join(out, name) for name in os.listdir(out) if name.startswith("copy-"))
    command = [binary, "match", "--merge", *copies] + (["--sprt", *sprt] if sprt else [])
    finished = subprocess.run(command, capture_output=True, text=True)
    if finished.returncode != 0:
        sys.exit(f"ray_match: the merge failed: {finished.stderr.strip()}")
    return finished.stdout


def run_match(options, arguments, out, decided_elsewhere=None):
    """Plays the match of `arguments` (those of `supernova match`) over the
    workers into `out`, and prints the merge's closing lines. With --sprt
    the merge decides; with `decided_elsewhere`, a function asked after
    every game that arrives, it does; either stops every task."""
    arguments = list(arguments)
    games_given = take_option(list(arguments), "--games", 1)
    if not games_given:
        sys.exit("ray_match: give the match's --games")
    games = int(games_given[0])
    listed = take_option(arguments, "--games-list", 1)
    numbers = list(range(1, games + 1))
    if listed:
        numbers = [number for part in listed[0].split(",")
                   for number in range(int(part.split("-")[0]), int(part.split("-")[-1]) + 1)]
    sprt = take_option(arguments, "--sprt", 4)
    signature = options.signature
    arguments += ["--build", signature]
    files = network_files(arguments)
    os.makedirs(out, exist_ok=True)
    if any(name.startswith("copy-") for name in os.listdir(out)):
        sys.exit(f"ray_match: {out} holds an earlier match's copies; give an empty --out")
    queue = [numbers[start:start + options.batch] for start in range(0, len(numbers), options.batch)]
    running = {}  # generator -> (copy directory, batch)
    arrived = set()
    copies = 0
    decided = False
    print(f"ray_match: {len(numbers)} games in {len(queue)} batches on {options.workers} workers, build {signature}", flush=True)
    while (queue or running) and not decided:
        while queue and len(running) < options.workers:
            batch = queue.pop(0)
            copies += 1
            directory = os.path.join(out, f"copy-{copies:04d}")
            os.makedirs(directory)
            running[play_batch.remote(options.binary, arguments, batch, files)] = (directory, batch)
        ready, _ = ray.wait(list(running), num_returns=1, timeout=1.0)
        for generator in ready:
            directory, batch = running[generator]
            try:
                item = ray.get(next(generator))
            except StopIteration:
                del running[generator]
                continue
            except ray.exceptions.RayError as error:
                lost = [number for number in batch if number not in arrived]
                print(f"ray_match: batch {batch} failed ({type(error).__name__}); "
                      f"games {lost} scheduled again", flush=True)
                del running[generator]
                if lost:
                    queue.append(lost)
                continue
            if item[0] == "started":
                print(f"ray_match: batch {batch} started, worker pid {item[1]}", flush=True)
                continue
            number, line, record = item
            with open(os.path.join(directory, f"game-{number:04d}.result"), "w") as result:
                result.write(line)
            with open(os.path.join(directory, f"game-{number:04d}.sdg"), "w") as sdg:
                sdg.write(record)
            arrived.add(number)
            print(f"ray_match: game {number} arrived ({len(arrived)} of {len(numbers)})", flush=True)
            if (sprt and re.search(r"H[01] was accepted", merge(options.binary, out, sprt))) \
                    or (decided_elsewhere and decided_elsewhere()):
                print("ray_match: the SPRT decided; cancelling every task", flush=True)
                decided = True
    for generator in running:
        ray.cancel(generator, force=True)
    print(merge(options.binary, out, sprt), end="", flush=True)


@ray.remote(num_cpus=1, max_retries=3)
def play_file(binary, arguments, generation, file, best_network):
    """Plays self-play file `file` of `generation`; returns its text."""
    work = tempfile.mkdtemp(prefix="ray_selfplay-")
    try:
        if best_network is not None:
            with open(os.path.join(work, "best.net"), "w") as network:
                network.write(best_network)
        command = [binary, "train", "--dir", work, *arguments, "--generations", str(generation),
                   "--self-play-files", str(file)]
        subprocess.run(command, check=True, capture_output=True, preexec_fn=die_with_parent)
        with open(os.path.join(work, f"gen-{generation:03d}", f"games-{file:04d}.txt")) as games:
            return games.read()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_selfplay(options, arguments):
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--generations", type=int, default=1)
    parser.add_argument("--games", type=int, default=2048)
    known, _ = parser.parse_known_args(arguments)
    take_option(arguments, "--generations", 1)
    files = -(-known.games // 64)
    os.makedirs(options.dir, exist_ok=True)
    for generation in range(1, known.generations + 1):
        directory = os.path.join(options.dir, f"gen-{generation:03d}")
        if not os.path.exists(os.path.join(directory, "gate.txt")):
            os.makedirs(directory, exist_ok=True)
            best_path = os.path.join(options.dir, "best.net")
            best = open(best_path).read() if os.path.exists(best_path) else None
            missing = [file for file in range(files)
                       if not os.path.exists(os.path.join(directory, f"games-{file:04d}.txt"))]
            tasks = {play_file.remote(options.binary, arguments, generation, file, best): file
                     for file in missing}
            for reference, file in tasks.items():
                path = os.path.join(directory, f"games-{file:04d}.txt")
                with open(path + ".partial", "w") as games:
                    games.write(ray.get(reference))
                os.rename(path + ".partial", path)
                print(f"ray_selfplay: generation {generation} file {file} collected", flush=True)
        run_gate(options, arguments, generation)


def run_gate(options, arguments, generation):
    """Fits (here) and gates generation `generation`: `supernova train
    --external-gate` names each batch of the gate it still needs as the
    arguments of a `supernova match`, which is spread over the workers into
    the batch's folder. Asked again after every game that arrives, it reads
    the batch's results in game-number order and writes the generation's
    gate.txt once its SPRT decides (the verdict and its statistics are
    Rust's); then every task of the batch is stopped."""
    command = [options.binary, "train", "--dir", options.dir, *arguments,
               "--generations", str(generation), "--external-gate"]
    gate_file = os.path.join(options.dir, f"gen-{generation:03d}", "gate.txt")

    def train():
        finished = subprocess.run(command, capture_output=True, text=True)
        if finished.returncode != 0:
            sys.exit(f"ray_selfplay: supernova train failed: {finished.stderr.strip()}")
        return finished.stdout

    def decided():
        output = train()
        if os.path.exists(gate_file):
            print(output, end="", flush=True)
            return True
        return False

    while True:
        output = train()
        print(output, end="", flush=True)
        if os.path.exists(gate_file):
            return
        wanted = re.search(r"the arguments of (.+) \(one a line\) into (.+), then run this again",
                           output)
        if not wanted:
            sys.exit("ray_selfplay: supernova train neither gated nor asked for a gate batch")
        with open(wanted.group(1)) as words:
            match_arguments = words.read().splitlines()
        results = wanted.group(2)
        runs = len([name for name in os.listdir(results) if name.startswith("driver-")]) \
            if os.path.isdir(results) else 0
        print(f"ray_selfplay: generation {generation} gate batch {results}", flush=True)
        run_match(options, match_arguments, os.path.join(results, f"driver-{runs + 1:02d}"), decided)
        if os.path.exists(gate_file):
            return


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["match", "selfplay"])
    parser.add_argument("--address", help="the cluster's address (default: a local cluster)")
    parser.add_argument("--workers", type=int, default=2, help="tasks at once (CPUs of a local cluster)")
    parser.add_argument("--batch", type=int, default=2, help="games per match task")
    parser.add_argument("--binary", default=DEFAULT_BINARY, help="supernova, at this path on every node")
    parser.add_argument("--out", help="match: the folder for the games' results and records")
    parser.add_argument("--dir", help="selfplay: the training run's folder")
    options, arguments = parser.parse_known_args()
    if arguments and arguments[0] == "--":
        arguments = arguments[1:]
    options.binary = os.path.abspath(options.binary)
    if options.workers < 1 or options.batch < 1:
        sys.exit("ray_match: --workers and --batch: expected 1 or more")
    if (options.mode == "match" and not options.out) or (options.mode == "selfplay" and not options.dir):
        sys.exit("ray_match: match needs --out DIR, selfplay needs --dir DIR")
    # A SIGTERM (a test's guard) stops the local cluster on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if options.address:
        ray.init(address=options.address, log_to_driver=False)
    else:
        ray.init(num_cpus=options.workers, include_dashboard=False, log_to_driver=False)
    try:
        options.signature = bench_signature(options.binary)
        if options.mode == "match":
            run_match(options, arguments, options.out)
        else:
            run_selfplay(options, arguments)
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
