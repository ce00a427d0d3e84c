from jobs import Queue


class When_jobs_are_pushed_in_order:
    def given_a_queue(self):
        self.queue = Queue()

    def because_we_push_two_jobs(self):
        self.queue.push("a")
        self.queue.push("b")

    def it_should_pop_the_first_job_first(self):
        assert self.queue.pop() == "a"

    def it_should_peek_at_the_first_job(self):
        assert self.queue.peek() == "a"


class When_the_queue_is_full:
    def given_a_full_queue(self):
        self.queue = Queue(limit=2)
        self.queue.push("a")
        self.queue.push("b")

    def because_we_push_one_more(self):
        try:
            self.queue.push("c")
        except OverflowError as e:
            self.error = e

    def it_should_refuse_the_job(self):
        assert isinstance(self.error, OverflowError)


class When_popping_an_empty_queue:
    def because_we_pop(self):
        self.job = Queue().pop()

    def it_should_give_nothing(self):
        assert self.job is None


class When_a_job_is_peeked:
    def given_a_queue_with_a_job(self):
        self.queue = Queue()
        self.queue.push({"id": 1})

    def it_should_show_its_id(self):
        assert self.queue.peek()["name"] == "one"
