"""mixedlib.py: what the mixed workload's checks read alike, for
tests/truth/mixed.py (the truth suite) and bench/sample-bias.py (the
benchmark of --sample's bias): the first function below schedule, and perf
script's shares of io_schedule and tar."""


def below_schedule(symbols):
    for i, f in enumerate(symbols):
        if f.split("+")[0] == "schedule" and i + 1 < len(symbols):
            return symbols[i + 1].split("+")[0]
    return None


def perf_shares(path):
    n = io = tar = 0
    comm, stack = None, []

    def flush():
        nonlocal n, io, tar
        if comm is None or comm == "stacktop":
            return
        n += 1
        io += below_schedule(stack) == "io_schedule"
        tar += comm == "tar"

    for line in open(path, errors="replace"):
        if not line.strip():
            flush()
            comm, stack = None, []
        elif line[0] not in " \t":
            flush()
            comm, stack = line.split()[0], []
        else:
            parts = line.split()
            stack.append(parts[1] if len(parts) > 1 else "?")
    flush()
    return n, io, tar
