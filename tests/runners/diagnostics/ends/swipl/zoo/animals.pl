% A small zoo's facts and rules, loaded with `swipl -g halt animals.pl feeding.pl`.
animal(lion).
animal(zebra).
eats(lion, Meat) :- meat(Meat).
meat(beef).
keeper(anna, lion).
animal(tiger).
herbivore(X) :- animal(X), \+ eats(X, _Y).
cage(A, B) :- animal(A).
