import logging
import time

log = logging.getLogger(__name__)


class QueueFull(Exception):
    pass


class Queue:
    def __init__(self, size):
        self.size = size
        self.items = []

    def push(self, item):
        if len(self.items) >= self.size:
            raise QueueFull("the queue is full, the item is dropped")
        self.items.append(item)

    def pop(self):
        try:
            return self.items.pop(0)
        except IndexError as e:
            log.error("empty queue: %s", e)
            raise

    def drain(self, handler):
        while self.items:
            item = self.pop()
            try:
                handler(item)
            except Exception as e:
                raise RuntimeError(item)


def wait(q, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            return q.pop()
        except Exception:
            time.sleep(0.1)
    raise TimeoutError("nothing arrived before the deadline")
