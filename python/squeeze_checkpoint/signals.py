"""squeeze's requests to a job, as flags: SIGUSR1 (please checkpoint) and SIGTERM (stop now).

The handlers only set a flag; the job acts on it at its next step boundary, so a signal that
arrives in the middle of a step never sees (or saves) a half-updated state. Handlers can only
be installed from the main thread (a Python rule); install() does nothing elsewhere. A process
forked after install() (a DataLoader worker) ignores SIGUSR1, which is the main process's
business (Slurm passes a job's signals to every process of a task), and keeps SIGTERM's
default action: SIGTERM to the job's process group still ends it.
"""

import os
import signal
import threading


class Requests:
    """What squeeze has asked since the last checkpoint. `in_step` is set by the loop so a
    request can say whether it came in the middle of a step."""

    def __init__(self):
        self.checkpoint = False   # SIGUSR1 seen
        self.stop = False         # SIGTERM seen
        self.in_step = None       # the step running now, or None between steps
        self.tracking = False     # whether the loop sets in_step (Checkpointer.steps does)
        self.during_step = None   # the step running when the first request came
        self.elsewhere = False    # the request came to another rank (Checkpointer's collective)
        self.installed = False
        self._previous = {}

    def install(self):
        """Installs the handlers (main thread only). Returns whether they are installed."""
        if self.installed:
            return True
        if threading.current_thread() is not threading.main_thread():
            return False
        self._pid = os.getpid()
        self._previous[signal.SIGUSR1] = signal.signal(signal.SIGUSR1, self._on_usr1)
        self._previous[signal.SIGTERM] = signal.signal(signal.SIGTERM, self._on_term)
        self.installed = True
        return True

    def uninstall(self):
        """Puts back the handlers there were before install()."""
        for sig, handler in self._previous.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
        self._previous.clear()
        self.installed = False

    def ignore_stop(self):
        """Once the job leaves (its checkpoint is on disk): SIGTERM is ignored from then on.
        squeeze sends the job's process group SIGTERM as soon as the checkpoint it asked for
        is written, which may be while the job exits; Python puts its own handlers back to the
        default as it shuts down, and that SIGTERM would then kill the job (`signal 15`)
        instead of letting it end with its exit code. A job that does not end is still killed
        by squeeze after its stop grace. Only when these handlers are installed."""
        if self.installed and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, signal.SIG_IGN)

    def _note(self, signum):
        """False in a forked child, where SIGUSR1 is ignored from then on and SIGTERM gets its
        default action."""
        if os.getpid() != self._pid:
            if signum == signal.SIGUSR1:
                signal.signal(signum, signal.SIG_IGN)
                return False
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return False
        if self.during_step is None:
            self.during_step = self.in_step
        return True

    def _on_usr1(self, signum, frame):
        if self._note(signum):
            self.checkpoint = True

    def _on_term(self, signum, frame):
        if self._note(signum):
            self.stop = True

    def pending(self):
        return self.checkpoint or self.stop

    def describe(self):
        what = "SIGTERM" if self.stop else "SIGUSR1"
        if self.during_step is not None:
            where = f" during step {self.during_step}"
        else:
            where = " between steps" if self.tracking else ""
        return what + (" on another rank" if self.elsewhere else where)

    def clear_checkpoint(self):
        self.checkpoint = False
        self.during_step = None
        self.elsewhere = False
