"""Token ids of each line of a corpus, computed by the `tokenizers` package (the reference).

    python tokenizer_reference.py tokenizer.json CORPUS.txt IDS.txt

Each line's bytes are decoded as UTF-8 with errors="replace" (the package takes str; this is the
mapping the C++ tokenizer documents for invalid UTF-8), encoded with the file's truncation and
without padding, and written as its ids separated by spaces, one line per corpus line.
"""
import sys

from tokenizers import Tokenizer


def main():
    tokenizer = Tokenizer.from_file(sys.argv[1])
    tokenizer.no_padding()
    with open(sys.argv[2], "rb") as corpus:
        lines = corpus.read().split(b"\n")[:-1]
    texts = [line.decode("utf-8", errors="replace") for line in lines]
    with open(sys.argv[3], "w") as out:
        for encoding in tokenizer.encode_batch(texts):
            out.write(" ".join(map(str, encoding.ids)) + "\n")


if __name__ == "__main__":
    main()
