# EXERCISE l7-stream
def collect(chunks, on_text):
    """Hand each piece of a streamed answer to on_text as it arrives; return the whole answer."""
    pieces = []
    for chunk in chunks:
        if not chunk.choices:  # the usage chunk comes last, with no choices
            continue
        piece = chunk.choices[0].delta.content
        if piece:
            on_text(piece)
            pieces.append(piece)
    return "".join(pieces)
