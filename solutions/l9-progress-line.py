# EXERCISE l9-progress-line
def progress_text(progress, total, message):
    if total:
        share = min(progress / total, 1)
        line = f"{progress:g}/{total:g} ({share:.0%})"
    else:
        line = f"{progress:g} done"
    if message:
        line += " " + message
    return line
