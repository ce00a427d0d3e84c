import sys
import time


class Reader:
    def __init__(self, port):
        self.port = port

    def read(self, count=10, values=[]):
        for i in range(count):
            values.append(self.port.get())
        print("read %d values" % len(values))
        return values

    def wait(self):
        time.sleep(1)
        return undefined_port
