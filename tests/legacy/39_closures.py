# nested functions and closures
def make_adder(n):
    def add(x):
        return x + n
    return add
add5 = make_adder(5)
print add5(1), map(make_adder(1), [1, 2])
def counter():
    count = [0]
    def inc():
        count[0] += 1
        return count[0]
    return inc
c = counter()
c(); c()
print c()
