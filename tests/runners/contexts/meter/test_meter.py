from meter import average, bill, parse


class When_a_bill_has_a_cap:
    def because_we_bill_a_large_reading(self):
        self.total = bill(300, cap=40)

    def it_should_not_exceed_the_cap(self):
        assert self.total == 40, f"billed {self.total}"


class When_a_bill_has_no_cap:
    def because_we_bill_a_reading(self):
        self.total = bill(100)

    def it_should_charge_the_rate(self):
        assert self.total == 25


class When_parsing_a_reading:
    def because_we_parse_a_line(self):
        self.meter, self.value = parse("E-1, 42")

    def it_should_read_the_meter(self):
        assert self.meter == "E-1"

    def it_should_read_the_value(self):
        assert self.value == 42


class When_parsing_a_decimal_reading:
    def because_we_parse_a_decimal(self):
        self.meter, self.value = parse("E-2, 12.5")

    def it_should_keep_the_fraction(self):
        assert self.value == 12.5


class When_averaging_no_readings:
    def because_we_average_nothing(self):
        self.result = average([1, 2])

    def it_should_be_none(self):
        assert self.result is None, "an empty average has no value"
