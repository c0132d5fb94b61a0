"""The constant-magnitude acceleration sine sweep of Solfec-1.0's scripts/acc_sweep.py (used by
its examples/parallel-scaling and examples/81array decks), as lists of floats: the same
signal, computed the same way (mid-step velocity integration, the start trimmed to where the
velocity first reaches a tenth of its settled swing, the displacement drift removed, a rest
period at the start). Reference: Solfec-1.0 scripts/acc_sweep.py (its comments).
"""
from math import pi, sin


def _velocities(step, stop, lofq, hifq, amag):
    """Accelerations and velocities (integrated at mid-steps) of the sweep from lofq to hifq
    over `stop`, continued past `stop` by the time at which the velocity first decreased."""
    acc, vel = [], []
    t, v, extra = 0.0, 0.0, 0.0
    while t < stop + extra:
        mid = t + 0.5 * step
        a = amag * sin(2.0 * pi * (lofq + (hifq - lofq) * mid / stop) * mid)
        v += a * step
        acc.append(a)
        vel.append(v)
        if extra == 0.0 and len(vel) > 2 and vel[-1] < vel[-2]:
            extra = t
        t += step
    return acc, vel


def _settled_level(vel):
    """A tenth of the sum of the last five velocity maxima and minima (their mean mid-level)."""
    top = bottom = 0.0
    ntop = nbottom = 0
    for i in range(len(vel) - 2, 0, -1):
        if vel[i - 1] < vel[i] > vel[i + 1]:
            ntop += 1
            top += vel[i]
        if vel[i - 1] > vel[i] < vel[i + 1]:
            nbottom += 1
            bottom += vel[i]
        if ntop == 5 and nbottom == 5:
            break
    return 0.1 * (top + bottom)


def _integrate(values, step, start_with_zero):
    out, total = [], 0.0
    for v in values:
        if start_with_zero:
            out.append(total)
            total += v * step
        else:
            total += v * step
            out.append(total)
    return out


def acc_sweep(rest, step, stop, lofq, hifq, amag):
    """(times, displacements, velocities, accelerations) of the sweep: `rest` seconds at rest,
    then `stop` seconds sweeping from `lofq` to `hifq` Hz with acceleration magnitude `amag`,
    sampled every `step`."""
    acc, vel = _velocities(step, stop, lofq, hifq, amag)
    level = _settled_level(vel)
    first = 0
    while vel[first] < level:
        first += 1
    acc, vel = acc[first:], vel[first:]
    clock, times = 0.0, []                  # a running sum, as the signal's clock
    for _ in vel:
        times.append(clock)
        clock += step
    disp = _integrate(vel, step, start_with_zero=True)
    # the drift: from the last displacement maximum back to the minimum before it
    i = len(disp) - 1
    while disp[i - 1] > disp[i]:
        i -= 1
    while disp[i - 1] < disp[i]:
        i -= 1
    j = i
    while disp[j - 1] > disp[i]:
        j += 1
    shift = (disp[i] + disp[j]) / (times[i] + times[j])
    vel = [v - shift for v in vel]
    disp = _integrate(vel, step, start_with_zero=False)
    n = int(rest / step)
    if n > 0:
        for _ in range(n):
            times.append(times[-1] + step)
        zeros = [0.0] * n
        disp, vel, acc = zeros + disp, zeros + vel, zeros + acc
    return times, disp, vel, acc
