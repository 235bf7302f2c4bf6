"""The write phase holds Ctrl-C/SIGTERM by blocking them in the calling thread's signal mask, and gives the mask back
afterwards. Masks are per thread: two threads writing at once must each get their own mask back (a process-wide
`_held` once let the first thread to finish take the other's saved mask, leaving that thread with SIGINT blocked for
good: every program it started afterwards inherited the block and ignored Ctrl-C)."""
import signal
import threading

from tfmigrate import rewrite_command


def _blocked() -> set:
    return signal.pthread_sigmask(signal.SIG_BLOCK, set()) & {signal.SIGINT, signal.SIGTERM}


def test_two_threads_writing_at_once_each_get_their_own_mask_back():
    assert not _blocked()
    inside, done = threading.Event(), threading.Event()
    seen = {}

    def other():
        rewrite_command._write_units([], {})  # blocks SIGINT/SIGTERM in this thread
        inside.set()
        done.wait(10)
        rewrite_command._release()
        seen["other"] = _blocked()

    t = threading.Thread(target=other)
    t.start()
    assert inside.wait(10)
    rewrite_command._write_units([], {})  # this thread's write phase starts while the other's still runs
    done.set()
    t.join(10)
    rewrite_command._release()
    assert _blocked() == set(), "the main thread was left with SIGINT/SIGTERM blocked"
    assert seen["other"] == set()
