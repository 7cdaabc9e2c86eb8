"""Writes the tokenizer test corpus: lines of bytes, the same file on every run (fixed seed).

    python3 tokenizer_corpus.py OUT.txt

12,000 mixed lines (English prose, code, numbers, accented Latin with precomposed and combining
accents, CJK, emoji, control characters, invalid UTF-8, special tokens written as text, words
longer than WordPiece's limit, lines longer than the truncation), then a sweep of every Unicode
scalar value (surrogates excepted), each between two letters, 32 to a line: the second part checks
every character class of the normaliser and the pre-tokenizer against `tokenizers`.
Lines are separated by b"\\n", which no line contains. Only the standard library is needed.
"""
import random
import sys

WORDS = """the of and to in is was for on that with as by at from his her an are this which be or had
not but they were have has one all their there been more when who will would can no out some what
so up into time about than them only other new its over could after first also these two may any
made people like now our most such then even through where much before those how because being
well many very each just while both between under never same another know year day man world life
hand part child eye woman place work week case point government company number group problem fact
model tensor kernel compile vector matrix layer token sentence embedding attention softmax batch
runtime fused thread cache memory Paris London Berlin Tokyo Monday January Python GitHub""".split()

CODE = [
    "def f(x): return x**2 + 1  # square plus one",
    "for (int i = 0; i < n; ++i) { a[i] += b[i] * c; }",
    "std::vector<std::int64_t> ids = tokenizer.encode(\"hello\");",
    "SELECT name, COUNT(*) FROM users WHERE age >= 18 GROUP BY name;",
    "if (x != nullptr && x->next) return x->next->value;",
    "https://example.com/path/to/page?query=1&lang=en#section-2",
    "user.name+tag@example.org",
    "/usr/lib/x86_64-linux-gnu/libicuuc.so.72",
    "C:\\Program Files\\App\\bin\\app.exe --flag=1",
    "<div class=\"box\"><a href='#'>link</a></div>",
    "$ git commit -m 'fix: off-by-one in loop' && git push",
    "lambda x, y: (x @ y.T).softmax(dim=-1)",
    "x <<= 3; y >>= 1; z ^= ~w | (v & 0xFF);",
    "{\"key\": [1, 2.5, null, true], \"nested\": {\"a\": \"b\"}}",
    "@decorator\nclass Foo(Bar): pass",
    "#include <tensorjit/tensorjit.hpp>",
    "a_b_c = snake_case_name; camelCaseName; SCREAMING_CASE",
    "printf(\"%d %s %5.2f\\n\", n, s, x);",
]

ACCENTED = ("café naïve Ångström Øresund façade Straße ŁÓDŹ résumé crème brûlée São Paulo Zürich "
            "Dvořák Škoda Ærøskøbing Malmö İstanbul ĳssel Œuvre fiancée jalapeño Ελληνικά Σίσυφος "
            "Москва Київ ДОБРО Ωμέγα ΣΣΣ ǅemal ﬁne ﬂow Ǆ ß ẞ ſ Kelvin K Å").split()
COMBINING = [0x300, 0x301, 0x302, 0x303, 0x308, 0x30A, 0x327, 0x328, 0x331, 0x323, 0x35C, 0x360, 0x489,
             0x20DD, 0x1AB0, 0x1DC0, 0xFE20]


def prose(rng):
    words = [rng.choice(WORDS) for _ in range(rng.randint(3, 30))]
    words[0] = words[0].capitalize()
    text = " ".join(words)
    for _ in range(rng.randint(0, 3)):
        position = rng.randrange(len(text))
        text = text[:position] + rng.choice(",;:!?-'\"()…—–«»„“”") + text[position:]
    return text + rng.choice(".!?…")


def numbers(rng):
    forms = [lambda: str(rng.randint(-10**6, 10**12)), lambda: f"{rng.uniform(-1e4, 1e4):.{rng.randint(0, 6)}f}",
             lambda: f"{rng.uniform(0, 1):.3e}", lambda: f"{rng.randint(1, 9)},{rng.randint(100, 999)}.{rng.randint(10, 99)}",
             lambda: f"{rng.randint(1900, 2100)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
             lambda: f"0x{rng.getrandbits(32):08X}", lambda: f"+1 ({rng.randint(200, 999)}) 555-{rng.randint(0, 9999):04d}",
             lambda: f"{rng.randint(0, 100)}%", lambda: f"${rng.randint(1, 999)}.{rng.randint(0, 99):02d}",
             lambda: "١٢٣٤ ٥٦ ²³ ½ ⅞ ① Ⅻ ４２"]
    return " ".join(rng.choice(forms)() for _ in range(rng.randint(1, 8)))


def accented(rng):
    parts = []
    for _ in range(rng.randint(2, 12)):
        if rng.random() < 0.6:
            parts.append(rng.choice(ACCENTED))
        else:
            word = "".join(rng.choice("aeiouyncsz") for _ in range(rng.randint(1, 6)))
            marked = "".join(ch + "".join(chr(rng.choice(COMBINING)) for _ in range(rng.randint(0, 3))) for ch in word)
            parts.append(marked if rng.random() < 0.5 else marked.upper())
        if rng.random() < 0.3:
            parts.append(chr(rng.randint(0xC0, 0x24F)) * rng.randint(1, 3))
    return " ".join(parts)


def cjk(rng):
    ranges = [(0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x3040, 0x309F), (0x30A0, 0x30FF), (0xAC00, 0xD7A3),
              (0x3000, 0x303F), (0xFF00, 0xFFEF), (0x20000, 0x2A6DF), (0x2B740, 0x2B81F), (0xF900, 0xFAFF),
              (0x2F800, 0x2FA1F), (0x31350, 0x323AF)]
    text = []
    for _ in range(rng.randint(3, 40)):
        low, high = rng.choice(ranges)
        text.append(chr(rng.randint(low, high)))
        if rng.random() < 0.1:
            text.append(rng.choice([" ", "，", "。", "a", "1", "、"]))
    return "".join(text)


def emoji(rng):
    ranges = [(0x1F600, 0x1F64F), (0x1F300, 0x1F5FF), (0x1F680, 0x1F6FF), (0x1F900, 0x1F9FF),
              (0x1FA70, 0x1FAFF), (0x2600, 0x26FF), (0x2700, 0x27BF)]
    parts = []
    for _ in range(rng.randint(1, 10)):
        low, high = rng.choice(ranges)
        item = chr(rng.randint(low, high))
        choice = rng.random()
        if choice < 0.15:
            item += chr(rng.randint(0x1F3FB, 0x1F3FF))  # skin tone
        elif choice < 0.3:
            item += "\u200d" + chr(rng.randint(0x1F466, 0x1F469))  # zero width joiner sequence
        elif choice < 0.4:
            item = chr(rng.randint(0x1F1E6, 0x1F1FF)) + chr(rng.randint(0x1F1E6, 0x1F1FF))  # flag
        elif choice < 0.5:
            item += "\ufe0f"
        parts.append(item)
        if rng.random() < 0.5:
            parts.append(rng.choice(WORDS))
    return rng.choice(["", " "]).join(parts)


def control(rng):
    controls = [*range(0x00, 0x0A), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0), 0xAD, 0x200B, 0x200C, 0x200D,
                0x200E, 0x200F, 0x2028, 0x2029, 0x202A, 0x202E, 0x2060, 0x2066, 0x2069, 0xFEFF, 0xFFF9, 0xFFFD,
                0xE000, 0xF8FF, 0x180E, 0x061C, 0x08E2, 0x110CD, 0x13430, 0xE0001, 0xE0020, 0xF0000, 0x10FFFD,
                0x00A0, 0x1680, 0x2000, 0x200A, 0x202F, 0x205F, 0x3000, 0x0085]
    text = []
    for _ in range(rng.randint(2, 20)):
        text.append(rng.choice(WORDS) if rng.random() < 0.5 else chr(rng.choice(controls)))
    return rng.choice(["", " "]).join(text)


def special_tokens(rng):
    tokens = ["[CLS]", "[SEP]", "[PAD]", "[MASK]", "[UNK]", "[cls]", "[CLS", "CLS]", "[ CLS]", "[[SEP]]", "[SEP][SEP]"]
    return " ".join(rng.choice(tokens) if rng.random() < 0.5 else rng.choice(WORDS) for _ in range(rng.randint(1, 8)))


def long_words(rng):
    letters = "abcdefghijklmnopqrstuvwxyzé"
    return " ".join("".join(rng.choice(letters) for _ in range(rng.choice([99, 100, 101, 150, 30])))
                    for _ in range(rng.randint(1, 3)))


def long_line(rng):
    return " ".join(prose(rng) for _ in range(rng.randint(8, 20)))


def encode(text):
    return text.encode("utf-8", errors="surrogatepass")


def invalid_utf8(rng):
    broken = [b"\x80", b"\xbf", b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\x80", b"\xed\xa0\x80", b"\xed\xbf\xbf",
              b"\xf4\x90\x80\x80", b"\xf5\x80", b"\xff", b"\xfe", b"\xe2\x82", b"\xe2", b"\xf0\x9f\x98",
              b"\xf0\x9f", b"\xc3", b"\xe4\xb8", b"\xf8\x88\x80\x80\x80", b"\xc3\xa9\xa9", b"\xef\xbf\xbd"]
    parts = []
    for _ in range(rng.randint(2, 12)):
        choice = rng.random()
        if choice < 0.4:
            parts.append(encode(rng.choice(WORDS)))
        elif choice < 0.8:
            parts.append(rng.choice(broken))
        else:
            parts.append(bytes(rng.randint(0x80, 0xFF) for _ in range(rng.randint(1, 4))))
    return rng.choice([b"", b" "]).join(parts)


def mixed(rng):
    makers = [prose, numbers, accented, cjk, emoji, control, special_tokens]
    return b" ".join(encode(rng.choice(makers)(rng)) if rng.random() < 0.85 else invalid_utf8(rng)
                     for _ in range(rng.randint(2, 5)))


def main():
    rng = random.Random(20261206)
    makers = [(prose, 3000), (lambda r: rng.choice(CODE), 800), (numbers, 1000), (accented, 1500),
              (cjk, 1000), (emoji, 1000), (control, 800), (special_tokens, 300), (long_words, 200),
              (long_line, 200), (invalid_utf8, 1000), (mixed, 1200)]
    lines = []
    for maker, count in makers:
        for _ in range(count):
            line = maker(rng)
            lines.append(line if isinstance(line, bytes) else encode(line))
    rng.shuffle(lines)
    lines.append(b"")
    # Every scalar value between two letters ("x" then the character then "y", so that a
    # character that vanishes joins them, a space splits them, punctuation stands alone, and an
    # accent or a capital shows in the word), 32 to a line.
    characters = [c for c in range(1, 0x110000) if not 0xD800 <= c < 0xE000 and c != 0x0A]
    for start in range(0, len(characters), 32):
        lines.append(encode(" ".join("x" + chr(c) + "y" for c in characters[start:start + 32])))
    with open(sys.argv[1], "wb") as out:
        out.write(b"\n".join(line.replace(b"\n", b" ") for line in lines) + b"\n")


if __name__ == "__main__":
    main()
