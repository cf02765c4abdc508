"""The grammar of a plain commitment: the words that may stand before a final answer in its own
sentence. This is the first line of defence, a closed list of GOOD forms; the hedge and negation
lists of `math_commit` are only the second. A sentence commits to the answer that follows it when,
after markdown and spacing are dropped, it is exactly

    [label] {connective [, :]} [clause] [math left side]

- label: "Answer:" or "Final answer:" (a heading an answer line may carry);
- connective: so, thus, therefore, hence, finally, overall, altogether, in total, in conclusion,
  in summary, as a result, consequently, then, clearly, putting it (all) together, ...;
- clause, one of
  - subject verb: the subject is "the"/"our" + adjectives from a closed list + a noun from a closed
    list ("the total number", "the minimum value"), perhaps "of"/"for" and a short complement
    ("the value of $x$", "the number of ways to choose them"), or a lone variable ("$x$"); the verb
    is is / equals / = / : / comes to / works out to / simplifies to / ... (never a modal, a past or
    a conditional: "could be", "was", "would be" state no answer);
  - we/I + get / obtain / find / have / conclude (that);
  - this / which / it + is / gives / yields / equals / works out to;
  - a fixed "the answer is" in a few other languages ("la respuesta es", "die Antwort ist");
- math left side: inside the answer's own math environment, an expression ending in "=" whose
  other side `math_extract` checks ("$x = \\boxed{3}$", "$4 \\times 9 = \\boxed{36}$").

Any other word, sign or symbol in that sentence (an emoji, "<s>", a scale or base prefix "In
thousands,", "For even $n$,", "A lower bound for the answer is", "My classmate got", "The discarded
root is", "Prove that the answer is") leaves no answer, with the reason. An empty sentence (a bare
box, a bare "Answer:" line) commits only if the line before it is not a label (it ends with ":"
and is not itself a plain commitment: "Incorrect:", "The following is wrong:") and the sentence
before it holds no doubt, negation or disowning word (`previous_problem`)."""

from __future__ import annotations

import re

from stages.verifiers.math_complements import complement_problem
from stages.verifiers.math_languages import foreign_commitment
from stages.verifiers.math_subjects import derived_left_side, derived_math_subject, derived_subject
from stages.verifiers.math_unicode import unify

MAX_WORDS = 40  # a committing sentence is short; the longest seen in Math-Verify's suite is ~35
_WORD = r"(?:[a-z][a-z'-]*|\d+(?:\.\d+)?)"
_CONNECTIVE = (
    r"(?:and\s+)?(?:so|thus|therefore|hence|finally|overall|altogether|in\s+total|in\s+conclusion"
    r"|in\s+summary|in\s+short|to\s+summarize|to\s+conclude|as\s+a\s+result|consequently|then"
    r"|clearly|now|here|putting\s+(?:it|this|these|everything)(?:\s+all)?\s+together"
    r"|combining\s+(?:these|everything|both|the\s+results)|this\s+means(?:\s+that)?"
    r"|which\s+means(?:\s+that)?|that\s+is|i\.e\.|\\therefore"
    # "By the quadratic formula,", "Solving the system of equations,": a closed list of leads
    rf"|(?:by|using|from|applying|solving|checking|substituting|simplifying|computing|calculating|rounded"
    rf"|evaluating|adding|subtracting|multiplying|dividing|factoring|expanding|rationali[sz]ing"
    rf"|comparing|combining|noting|plugging|converting|reducing|cross-multiplying)"
    rf"(?:\s+{_WORD}){{0,6}}\s*[,:]"
    r"|after\s+(?:simplification|simplifying|substitution|substituting|rationali[sz]ation"
    r"|rationali[sz]ing|expanding|expansion|factoring|cancell?ing|cancell?ation|combining|reduction"
    r"|reducing|evaluation|evaluating)\s*[,:])"
)
_ADJECTIVE = (
    r"(?:final|correct|total|exact|required|desired|requested|resulting|sought|minimum|maximum"
    r"|minimal|maximal|smallest|largest|greatest|least|biggest|highest|lowest|positive|negative"
    r"|nonnegative|real|integer|whole|simplified|numerical|numeric|overall|combined|net"
    r"|remaining|unknown|only|unique|expected|average|original|new|common|area|decimal|solution"
    r"|identity|zero|ordered|distinct|different|possible|inverse|transpose|special|polar"
    r"|cartesian|rectangular|spherical|cylindrical"
    # "the largest prime factor", "the leading coefficient", "the constant term" (round 21)
    r"|prime|leading|constant|missing|perpendicular|shortest|longest|standard"
    r"|(?:smallest|largest|greatest|least|minimum|maximum|highest|lowest)\s+possible)"
)
_NOUN = (
    r"(?:answers?|results?|solutions?|values?|total|sum|product|quotient|difference|remainder"
    r"|area|volume|perimeter|length|width|height|depth|distance|speed|rate|cost|price"
    r"|probability|average|mean|median|mode|ratio|score|count|number|measure|age|weight|mass"
    r"|radius|diameter|circumference|slope|period|profit|balance|amount|percentage|population"
    r"|temperature|time|range|degree|angle|side|determinant|trace|rank|dimension|norm|magnitude"
    r"|velocity|acceleration|force|loss|gain|increase|decrease|change|discount|savings|interest"
    r"|share|fraction|proportion|percent|factor|coefficient|term|digit|digits|payment|income"
    r"|salary|revenue|fee|tax|budget|debt|expression|equation|polynomial|limit|integral"
    r"|derivative|antiderivative|primitive|inverse|logarithm|coordinates?|point|pair|triple|tuple"
    r"|matrix|vector|set|interval|roots?|zeros?"
    r"|vertex|center|centre|midpoint|centroid|focus"
    r"|minimum|maximum|domain|sequence|function|formula|ways|length|units?|quantity|integers?"
    r"|numbers|pairs|points|x|y|z|n|k|m"
    # the subjects of number theory, geometry and choice answers (round 21: "the greatest common
    # divisor of 12 and 18 is", "the hypotenuse is", "the correct option is")
    r"|divisors?|multiples?|gcd|lcm|gcf|hypotenuse|legs?|altitude|apothem|diagonals?|edges?|base"
    r"|exponent|modulus|residue|discriminant|eigenvalues?|reciprocal|variance|(?:[xyz]-)?intercepts?"
    r"|(?:answer\s+)?(?:choice|option)|letter|projection|reflection|image|deviation"
    # a digit by its place, a term by its position ("the units digit", "the $n$th term")
    r"|(?:units|ones|tens|hundreds|thousands|leading|last|rightmost|leftmost)\s+digits?"
    r"|(?:\d{1,4}(?:st|nd|rd|th)|m(?:\s*-?\s*th)?|[nk]-?th|first|second|third|fourth|fifth|sixth"
    r"|seventh|eighth|ninth|tenth|next|general)\s+terms?)"
)
# "of the first 10 terms", "for $x$", "to the problem": a short complement of the subject noun
_COMPLEMENT = (
    rf"(?:\s+(?:of|for|that|such\s+that|between|where|when|satisfying|in\s+terms\s+of)\s+{_WORD}"
    rf"(?:\s+{_WORD}|\s+=){{0,30}}"
    r"|\s+to\s+(?:the|this)\s+(?:question|problem|exercise|task))"
)
_SUBJECT = (
    rf"(?:(?:the|our)\s+(?:{_ADJECTIVE}\s+)*{_NOUN}(?:\s+m)?{_COMPLEMENT}?|m"
    # "Paula's investment is worth": a person's money, named by a closed noun
    r"|(?!(?:classmate|student|team|teacher|textbook|book|friend|someone|somebody|anyone|anybody"
    r"|everyone|nobody|other)'s)(?<![\w'])[a-z]+'s\s+(?:investment|savings|deposit|account|portfolio|balance|money)(?=\s+(?:is|will\s+be)\s+worth))"
)
_VERB = (
    r"(?:is|are|equals?|=|:|is\s+equal\s+to|is\s+given\s+by|comes\s+to|works\s+out\s+to"
    r"|amounts\s+to|evaluates\s+to|simplifies\s+to|reduces\s+to|turns\s+out\s+to\s+be|becomes"
    r"|comes\s+out\s+to"
    r"|must\s+be|should\s+be|has\s+to\s+be|will\s+be|totals|is\s+worth|will\s+be\s+worth)"
    r"(?:\s+(?:therefore|thus|then|simply|just|exactly|precisely|indeed|clearly|now|still|hence))?"
    # "the answer is option \boxed{B}": the choice named as one (round 21)
    r"(?:\s+(?:option|choice|letter))?"
    r"(?:\s*:)?"
)
# Words that make a complement someone else's, an earlier or a wrong one.
_NOT_OWN = r"(?:my|your|his|her|their|previous|earlier|old|draft|wrong|incorrect|first|last|other)(?![\w'])"
# A word problem's quantity of a person or thing ("His average speed", "the rectangle's area"),
# stated now or in the past tense ("was 55 miles per hour"); never an answer, result or value of
# someone ("His answer was 44", "the teacher's result is"), which is another's claim.
_OWN_QUANTITY = (
    rf"(?:{_ADJECTIVE}\s+)*(?!(?:answers?|results?|solutions?|values?|guess)(?![\w'])){_NOUN}"
)
_QUANTITY_OWNER = (
    r"(?:his|her|their|its|the\s+(?!(?:classmate|student|team|teacher|textbook|book|friend|tutor"
    r"|professor|author|key|calculator|other|previous|first|old)'s)[a-z]+'s)"
)
_ACTS = (
    r"has|have|takes?|needs?|costs?|spends?|earns?|makes?|saves?|pays?|gets?|owes?|weighs?"
    r"|receives?|sells?|buys?|uses?|collects?|spent|paid|earned|saved|made|bought|sold|owns?"
    # a word problem's own verbs of doing ("James writes \boxed{624} pages a year", round 15)
    # (never "reads" or "wrote": "It reads 42" is a tool's display, "You wrote 42" another's answer)
    r"|writes|runs|ran|walks|walked|drives|drove|travels|traveled|travelled|eats|ate"
    # "Kylar needs to pay \boxed{64} dollars": what the person must pay or spend is the amount
    r"|(?:needs?|has|have)\s+to\s+(?:pay|spend|save|earn|make|buy|sell|collect|run|walk|drive"
    r"|travel|write)"
    # "Tom had \boxed{5}", "the tank holds": what a person or thing had or holds (round 21)
    r"|had|holds?"
)
# What a person or thing is left with ("We are left with \boxed{12} apples", "She is left with",
# "This leaves us with"): the remainder a word problem asks for (round 21's m21-019).
_LEFT_WITH = (
    r"(?:(?:he|she|they|we|i|you)\s+(?:(?:is|are|am|was|were|will\s+be)\s+)?left"
    r"|(?:this|which|that|it)\s+(?:leaves|left)(?:\s+(?:us|me|him|her|them))?"
    r"|(?:he|she|they|we|i|you)\s+(?:end|ends|ended)\s+up)\s+with"
)
# A thing of the word problem ("So the toy costs", "the cube has a volume of"): "the" and at most
# three plain words, none a step, a role, a source or an ordinal (round 21's m21-015, m21-023);
# "the relevant step has", "the first box has", "the teacher has" state no answer.
_NOT_A_THING = (
    r"(?:step|steps|stage|part|parts|case|cases|line|lines|attempt|draft|guess|estimate|answer"
    r"|answers|result|results|solution|solutions|value|values|key|book|textbook|calculator"
    r"|computer|program|code|teacher|tutor|professor|author|classmate|classmates|student|students"
    r"|friend|friends|other|others|previous|first|second|third|last|next|old|wrong|incorrect"
    r"|discarded|rejected|extraneous|naive|original|initial|earlier|preliminary|tentative"
    r"|intermediate|partial|relevant|model|grader|checker|reference|solver|method|approach|formula"
    r"|problem|question|exercise|one|ones|same|above|below|following|former|latter|brute|force"
    r"|heuristic|simulation|estimation|approximation|trial|check|test|sample|example|conjecture"
    r"|claim|hypothesis|assumption|hint|prediction|candidate|option|choice|alternative|bound"
    r"|bounds|placeholder|dummy|decoy|scratch|backup|alternate|rumou?r|hearsay|template|filler)"
)
_THING = rf"the(?:\s+(?!{_NOT_A_THING}(?![\w'-]))[a-z][a-z-]*){{1,3}}"
# A word problem's person by name before one of those verbs ("Natalia sold", "So, Tom has")
# stands for "she"; never a tool or someone the writer consults ("Wolfram gets", "Teacher has").
_PERSON = re.compile(
    r"(?<![\w'])(?!(?:The|This|That|These|Those|It|We|You|He|She|They|My|Our|Your|His|Her|Their"
    r"|Each|Every|Some|Any|All|Both|Which|Who|What|There|Here|Then|So|Thus|Hence|Now|If|When"
    r"|No|Nobody|Someone|Somebody|Everyone|Teacher|Professor|Tutor|Mom|Mum|Dad|Wolfram\w*|Chat\w*"
    r"|GPT\w*|Google|Python|Excel|Claude|Gemini|Siri|Alexa|Copilot|Bing|Calculator"
    # roles and claims, never a person ("Hence Conjecture is \boxed{5}"; round 21's "is")
    r"|Conjecture|Claim|Hypothesis|Guess|Estimate|Draft|Lemma|Theorem|Assumption|Attempt|Hint"
    r"|Example|Prediction|Proposal|Candidate|Option|Choice|Alternative|Intuition|Answer|Result"
    r"|Solution|Output|Value|Note|Step|Case|Part|Check|Test|Sample|Fake|Placeholder|Dummy|Mock"
    r"|Decoy|Old|Earlier|Initial|First|Second|Last|Final|Previous|Approximation|Upper|Lower|Extra"
    r"|Other|Alternate|Backup|Bonus|Scratch|Rumou?r|Hearsay|Copy|Template|Filler|Bound|Limit"
    r"|Wrong|Incorrect|Bogus|Naive|Rough|Quick|Fast|Slow|Brute|Approx\w*|Estimat\w*|Guess\w*)(?![a-z]))"
    rf"[A-Z][a-z]{{1,20}}(?=\s+(?:now\s+|still\s+|currently\s+)?(?:will\s+)?(?:{_ACTS}|is|was"
    r"|will\s+be)(?![\w']))"
)
_CLAUSE = (
    rf"(?:{_SUBJECT}\s*{_VERB}"
    rf"|{_QUANTITY_OWNER}\s+{_OWN_QUANTITY}{_COMPLEMENT}?\s*(?:{_VERB}|was|were)"
    rf"|the\s+{_OWN_QUANTITY}{_COMPLEMENT}?\s*(?:was|were)"
    # "Substituting gives", "Plugging in yields": a step of working that gives the answer
    r"|(?:substituting|plugging\s+in|solving|simplifying|rationali[sz]ing|expanding|factoring"
    r"|computing|calculating|evaluating|combining|adding|subtracting|multiplying|dividing"
    r"|converting|reducing|applying|using|setting|equating|summing|squaring|taking)"
    rf"(?:\s+(?:{_WORD}|=)){{0,6}}\s+(?:gives|yields)(?:\s+us)?"
    # "Each box holds": each of the problem's things, and a closed verb
    r"|each\s+[a-z]+\s+(?:holds|gets|has|costs|receives|contains|weighs|needs|takes|pays|is"
    r"|measures|spends|earns|saves|makes)"
    # "She has \boxed{18} dollars left.", "It takes \boxed{6} hours.": a pronoun and a closed verb
    # (a person named in the problem reads as "she": `_PERSON`), perhaps "now" or "still"
    rf"|(?:he|she|they|it|we|you|{_THING})\s+(?:now\s+|still\s+|currently\s+)?(?:will\s+)?"
    rf"(?:{_ACTS})"
    r"(?:\s+(?:him|her|them|us|me|you))?"
    # "So he made a profit of": the person's quantity, named by a closed noun
    rf"(?:\s+an?\s+(?:{_ADJECTIVE}\s+)*(?!(?:answers?|results?|solutions?|values?)(?![\w'])){_NOUN}"
    r"\s+of|\s+(?:length|area|volume|perimeter|radius|diameter|height|width|mass|weight))?"
    # "So Tom is \boxed{12} years old.": a person of the problem (`_PERSON` reads a name as
    # "she") is what follows; its tail is checked as any answer's is (round 21)
    r"|(?:he|she|they)\s+(?:is|are|was|were|will\s+be)"
    rf"|{_LEFT_WITH}"
    # "We use the distance formula:" before the working that ends in the answer
    r"|(?:we|i)\s+(?:use|apply|compute|calculate|evaluate|simplify|expand|substitute|solve)"
    r"(?:\s+(?:the|this|these|a|an))?(?:\s+[a-z]+){0,4}\s*:"
    r"|(?:we|i)\s+(?:can\s+)?(?:get|obtain|find|have|conclude|arrive\s+at|end\s+up\s+with)"
    rf"(?:\s+that)?(?:\s+{_SUBJECT}\s*{_VERB})?"
    r"|(?:this|which|that|it)\s+(?:is|gives|yields|equals|becomes|works\s+out\s+to|comes\s+to"
    r"|simplifies\s+to|evaluates\s+to)(?:\s+us)?"
    r"|la\s+respuesta\s+es|la\s+r[ée]ponse\s+est|die\s+antwort\s+ist|la\s+risposta\s+[èe]"
    r"|a\s+resposta\s+[ée]|het\s+antwoord\s+is|(?:final\s+)?answer\s*:"
    # German puts the verb first after a connective: "Also ist die Antwort", "Somit lautet das Ergebnis"
    r"|(?:(?:also|somit|daher|damit|folglich|deshalb|insgesamt)\s+)?(?:ist|lautet)\s+(?:die|das)"
    r"\s+(?:gesuchte\s+|endgültige\s+)?(?:antwort|ergebnis|lösung)"
    # "the minimum error in the measurement of the position increases by": a change of a quantity
    # (an error too: with a change verb it names a measured quantity, never a mistake)
    rf"|the\s+(?:{_ADJECTIVE}\s+)*(?:{_NOUN}|error)(?:\s+(?:in|of)(?:\s+(?!{_NOT_OWN}){_WORD}){{1,8}})?"
    r"\s+(?:increases|decreases)\s+by"
    r"|there\s+(?:is|are)|[a-z]\s*(?:=|\\in)|(?:for\s+|making\s+(?:for\s+)?|giving\s+)?an?\s+(?:total|sum)\s+of"
    rf"|(?:for\s+|making\s+(?:for\s+)?)an?\s+(?:{_ADJECTIVE}\s+)*{_NOUN}\s+of|{_VERB}"
    # a label naming what follows ("Special matrix:", "Matrix with fractions:", "Here is a zero
    # matrix:"): closed adjectives and nouns, at most three plain words after "with"
    rf"|(?:here\s+is\s+(?:the|an?)\s+)?(?:{_ADJECTIVE}\s+)*{_NOUN}(?:\s+with(?:\s+[a-z]+){{1,3}})?\s*:)"
)
_LABEL = r"(?:(?:final\s+)?answer\s*:?\s*|####\s*)"
_COMMITMENT = re.compile(
    rf"{_LABEL}?(?:{_CONNECTIVE}\s*[,:]?\s*)*(?:{_CLAUSE})?",
    re.IGNORECASE,
)
# A clause of working, then a connective that starts the committing clause.
_JOINED = re.compile(
    r"[,;]\s+(?P<rest>(?:and\s+)?(?:so|thus|therefore|hence|making|giving|which\s+gives)\b.*)$"
)
# A complement is open text: it may not name someone else's answer or a modal, past or negation.
_COMPLEMENT_WORDS = re.compile(
    r"(?<![\w'])(?:classmate|student|team|teacher|textbook|book|friend|someone|they|he|she|i|we"
    r"|you|my|your|his|her|their|not|never|no|draft|old"
    r"|previous|wrong|incorrect|rejected|discarded|extraneous|bound|estimate|errors?|mistakes?|typos?|guess|rough)(?![\w'])"
)
_COMPLEMENT_INTRO = re.compile(
    r"(?<![\w'])(?:of|for|that|between|where|satisfying|with|use|apply|solving|evaluating"
    r"|substituting|plugging|setting|using|applying|taking|dividing|multiplying)(?![\w'])"
)
# The last display environment or one closed with "$$" ends the working before a sentence.
_DISPLAY_END = re.compile(r"\\\]|\$\$|\\end\s*\{[a-z]+\*?\}")
# A relative clause in parentheses that restates the subject's value or kind is dropped ("the
# degree of $p(x)$ (which is 1)", "(which is the constant polynomial 1)"); any other is read as
# words, which no commitment holds: "(which fails the check)", "(which is what Bob got)" (round 27)
_RESTATING = re.compile(
    r"\((?:which\s+is|that\s+is|i\.e\.)\s*,?\s*(?:\$[^$]{1,60}\$|-?\d[\d.,/]*|(?:the|an?)\s+"
    rf"(?:{_ADJECTIVE}\s+)*{_NOUN}(?:\s+(?:\$[^$]{{1,60}}\$|-?\d[\d.,/]*))?)\s*\)",
    re.IGNORECASE,
)
# Second line: a scale or base stated with the answer changes its value ("In thousands, ...").
_SCALE = re.compile(
    r"(?<![\w])(?:in|of|as)\s+(?:base\s*\d+|(?:units\s+of\s+)?(?:tens|hundreds|thousands|millions"
    r"|billions|trillions|dozens|percent|binary|octal|hex|hexadecimal|scientific\s+notation))(?![\w])"
)
# Markdown emphasis, list bullets and blockquotes around a sentence carry no words.
_MARKDOWN = re.compile(r"\*\*|__|(?<![\w\\])[*_](?![\w])|^\s*(?:[-*>]|\d{1,2}[.)])\s+")
_INLINE_MATH = re.compile(r"\$[^$]{1,80}\$|\\\((?:[^\\]|\\[^)]){1,80}\\\)")
_DELIMITER = re.compile(r"\\\$|\$\$?|\\[()\[\]]|\\(?:begin|end)\s*\{[a-z]+\*?\}")


def _open_math(text: str) -> int | None:
    """Where the math environment that is still open at the end of `text` starts, or None."""
    opened: int | None = None
    closer = ""
    for m in _DELIMITER.finditer(text):
        token = m.group()
        if token == "\\$":
            continue
        if token.startswith("\\begin"):
            token = "\\begin"
        elif token.startswith("\\end"):
            token = "\\end"
        if opened is None and token in ("$", "$$", "\\(", "\\[", "\\begin"):
            opened = m.start()
            closer = {"\\(": "\\)", "\\[": "\\]", "\\begin": "\\end"}.get(token, token)
        elif opened is not None and token == closer:
            opened = None
    return opened


# The math before a box in its own environment: "x =", "4 \\times 9 =", "f(2) =", never "\\text".
_MATH_LEFT = re.compile(
    r"\s*(?:\\therefore\s*)?(?:[^=\\]*(?:\\(?!text|mbox|mathrm)[^=\\]*)*(?:=|\\in\b|\\equiv\b)\s*)*"
)


def commitment_problem(prefix: str, working: str = "") -> str | None:
    """Why the sentence text before an answer is not a plain commitment, or None when it is
    (`working`: the response before that sentence, whose goal line may ask for a derived subject)."""
    text = unify(prefix)
    if foreign_commitment(text) or foreign_commitment(prefix):  # "答案：", "Ответ:" (round 17)
        return None
    ends = [m.end() for m in _DISPLAY_END.finditer(text)]
    opened = _open_math(text)
    if ends and (opened is None or ends[-1] <= opened):
        cut = ends[-1]
        text = text[cut:]
        opened = None if opened is None else opened - cut
    if opened is not None:  # the answer sits in a math environment opened in this sentence
        math = _DELIMITER.sub("", text[opened:])  # a stray "$" inside ("\\($y = ") adds nothing
        if not _MATH_LEFT.fullmatch(math):
            return f"math before the answer is not one left side ({_shown(math)})"
        derived = derived_left_side(math, working)  # "We need $x$ ... so $2x = \\boxed{6}$"
        if derived:
            return derived
        text = text[:opened]
    derived = derived_math_subject(text, _INLINE_MATH, working)  # "So $\\log N$ is" (round 22)
    if derived:
        return derived
    words = _INLINE_MATH.sub(" m ", _RESTATING.sub(" ", _MARKDOWN.sub(" ", text)))
    words = " ".join(_PERSON.sub("she", words).replace("\\,", " ").split()).lower().rstrip()
    if words.count(" ") >= MAX_WORDS:  # also bounds the grammar's backtracking
        return f"not a plain commitment (more than {MAX_WORDS} words before the answer)"
    scale = _SCALE.search(words)
    if scale:
        return f"a scale or base changes the answer ({scale.group()!r})"
    # "The length is $5$ per side, so the perimeter is": a working clause, then a connective
    joined = _JOINED.search(words)
    for clause in (words, words[joined.start("rest") :] if joined else None):
        if clause is not None and _COMMITMENT.fullmatch(clause):
            derived = derived_subject(
                clause, text, working
            )  # "the reciprocal of the GCD is" (round 22)
            if derived:
                return derived
            intro = _COMPLEMENT_INTRO.search(clause, clause.rfind(",") + 1)
            other = _COMPLEMENT_WORDS.search(clause, intro.end()) if intro else None
            if other:
                return f"not a plain commitment ({other.group()!r} in {_shown(prefix)})"
            return complement_problem(clause)  # another problem, source or set-aside answer
    return f"not a plain commitment ({_shown(prefix)})"


def is_bare(prefix: str) -> bool:
    """The sentence before an answer holds no words at all (a bare box, a bare "Answer:" line)."""
    text = unify(prefix)
    opened = _open_math(text)
    words = _MARKDOWN.sub(" ", text if opened is None else text[:opened])
    return not _LABEL_ONLY.sub("", words).strip()


_LABEL_ONLY = re.compile(r"(?i)(?:final\s+)?answer\s*:?|####|[#\s]+")


def is_label_line(line: str) -> bool:
    """A line that ends with ':' labels what follows it."""
    return unify(line).rstrip(" \t*_$").endswith((":", "："))


# The sentence before a bare answer may disown it ("The next line is wrong.", "Everything below is
# a decoy.", "I don't know."): the second line of defence, a list of words.
_DISOWNING = re.compile(
    r"(?i)(?<![\w'])(?:not|no|never|none|n't|don't|cannot|can't|wrong|incorrect|error|errors"
    r"|mistake|mistakes|decoy|decoys|bogus|guess|guessing|guessed|random|sure|unsure|idea|maybe"
    r"|perhaps|probably|possibly|below|following|follows|next|reject|rejected|discard|discarded"
    r"|avoid|typo|fake|false|invalid|ignore|draft|tentative|example|counterexample)(?![\w'])"
)


def previous_problem(previous: str) -> str | None:
    """Why the sentence or line before a bare answer disowns it, or None."""
    text = unify(previous).strip()
    if not text:
        return None
    if is_label_line(text):
        label = text.rstrip(" \t*_$")[:-1]
        if commitment_problem(label + ":") is None:
            return None  # "The final answer is:", "Putting it all together:"
        return f"a label before the answer ({_shown(text)})"
    cue = _DISOWNING.search(text)
    return f"{cue.group()!r} in the sentence before the answer" if cue else None


def _shown(text: str) -> str:
    return repr(" ".join(text.split())[-50:])
