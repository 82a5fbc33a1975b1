"""Pool arithmetic on CPU (0.5.16+): placeholder until implemented."""


def available() -> bool:
    return False
