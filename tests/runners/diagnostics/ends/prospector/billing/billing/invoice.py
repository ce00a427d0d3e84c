import os
import json


def total(lines, discount={}):
    unused = 3
    amount = 0
    for line in lines:
        amount += line["price"] * line["qty"]
    if discount == None:
        return amount
    return amount - discount.get("value", 0)


def save(invoice, path):
    handle = open(path, "w")
    handle.write(json.dumps(invoice))
    handle.close()
