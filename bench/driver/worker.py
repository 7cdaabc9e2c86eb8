"""One peer's worker process and its line protocol (bench/peers/worker_loop.hpp)."""
import os
import select
import signal
import subprocess
import tempfile


class WorkerGone(Exception):
    """The process exited or did not answer in time; the message says why."""


class Worker:
    def __init__(self, peer, command, environment):
        self.peer = peer
        self.stderr = tempfile.TemporaryFile(mode="w+")
        try:
            self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=self.stderr, env=environment, text=True, bufsize=1)
        except OSError as error:
            raise WorkerGone(f"cannot start {command[0]}: {error.strerror}") from None

    def request(self, line, timeout=900):
        """Sends one request and returns the reply line (stripped)."""
        if self.process.poll() is not None:
            raise WorkerGone(self.exit_reason())
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            raise WorkerGone(self.exit_reason()) from None
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not ready:
            self.close()
            raise WorkerGone(f"no answer to '{line.split()[0]}' within {timeout} s")
        reply = self.process.stdout.readline()
        if not reply:
            raise WorkerGone(self.exit_reason())
        return reply.strip()

    def pause(self):
        """Stops the process (every thread of it, spinning pool threads too) until resume()."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGSTOP)

    def resume(self):
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGCONT)

    def exit_reason(self):
        """The last lines the process wrote on stderr: an import error, a missing library."""
        if self.stderr.closed:
            return "stopped after an earlier failure"
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            return "not answering"
        self.stderr.seek(0)
        lines = [line.strip() for line in self.stderr.read().splitlines() if line.strip()]
        text = " ".join(lines[-2:]) if lines else f"exit status {self.process.returncode}"
        return text.removeprefix("absent: ")

    def close(self):
        if self.process.poll() is None:
            try:
                self.process.stdin.write("quit\n")
                self.process.stdin.flush()
                self.process.wait(timeout=10)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        self.stderr.close()


def start_worker(peer, build_dir, threads, environment, pin):
    """Starts `peer`'s worker; returns (worker, info line) or raises WorkerGone with the reason."""
    command = peer.command(build_dir, threads)
    if not os.path.exists(command[0]):
        raise WorkerGone(f"{command[0]} not found")
    if pin:
        command = ["taskset", "-c", "0"] + command
    worker = Worker(peer, command, environment)
    try:
        info = worker.request("info", timeout=300)
    except WorkerGone:
        worker.close()
        raise
    return worker, info
