"""A small job queue."""


class Queue:
    def __init__(self, limit=3):
        self.items, self.limit = [], limit

    def push(self, job):
        if len(self.items) > self.limit:
            raise OverflowError("queue is full")
        self.items.append(job)

    def pop(self):
        return self.items.pop()

    def peek(self):
        return self.items[0]
