"""A passing grade's reason that undercuts its own `"passed": true` (red team round 19). Beside the
flag such a reason makes the grade say two things, and the reply is ambiguous: a judge error, as a
repeated key is (`judge.parse_judgement`). Four notions, each read by rule rather than by phrase:

- the grade's field written in the reason set the other way: `passed: false`, `{"passed": false}`,
  `satisfied = 0`, `result: fail` (any verdict key, any separator, any false value);
- a correction of the flag: "Oops, I meant false.", "Correction: ...", "typo", "scratch that",
  "marked true by mistake": the judge says the field is not what it meant;
- undecided: "Uncertain; leaning fail.", "Cannot be judged.", "Borderline", "N/A", "50/50": a
  pass needs a decision;
- a failing verdict in another language ("Başarısız.", "Không đạt.", "不及格", "Не пройдено"): the
  words for failed / not passed / not met / wrong of the thirty most spoken languages and the EU's.

Strict on purpose: an honest reason seldom says any of these, and a reply refused is asked again,
never paid. Latin-script words are read on the skeleton (ASCII, accents dropped), the others on
the NFKC, case-folded form."""

from __future__ import annotations

import re

_KEY = (
    r"(?:passed|pass|passes|satisfied|met|ok|verdict|result|status|outcome|grade|decision"
    r"|fulfill?ed|compliant|correct)"
)
# "no", "0", "none" only alone: "passed: no issues" is praise
_FALSE = r"(?:false|fail(?:ed|s|ing)?|(?:no|0|none|null|nil|off|n)(?!\s*[\w\u00c0-\uffff]))"
# the field set to false: `passed: false`, `"passed" = False`, `{'met': 0}`, `passed -> no`
_FIELD_FALSE = (
    rf"[\"'`]?\b{_KEY}[\"'`]?\s*(?:[:=]+|->|=>|\u2192|\bis\b|\bset\s+to\b)\s*[\"'`]?{_FALSE}\b"
)
# the judge taking the flag back: it meant the other value, or set it by mistake
_CORRECTION = (
    r"\b(?:oops|whoops|my\s+bad|typo|scratch\s+that|strike\s+that|correction|erratum|i\s+misspoke"
    r"|by\s+mistake|mistakenly|in\s+error|erroneously|accidentally|inadvertently|wrongly\s+(?:set"
    r"|marked|flagged)|should\s+(?:\w+\s+){0,2}(?:have\s+been|read|say|be)\s+(?:an?\s+)?(?:false|fail\w*|no"
    r"|not\s+passed)\b"
    r"|(?:i|we)\s+(?:meant|mean|intended)\s+(?:to\s+(?:say|mark|set|put)\s+(?:it\s+)?)?"
    r"(?:false|fail\w*|no|not|as\s+(?:false|fail\w*))\b"
    r"|actually[\s,:;-]+(?:it\s+)?(?:no|false|fails?|not|doesn't|does\s+not|isn't|is\s+not)\b"
    r"|wait[\s,:;.!-]+(?:no|actually|i\s+meant|that's\s+wrong)"
    r"|(?:ignore|disregard)\s+(?:the\s+)?(?:flag|field|passed|verdict|true))"
)
# no decision: doubt, a lean, a question that cannot be settled
_UNDECIDED = (
    r"\b(?:uncertain|unsure|not\s+(?:sure|certain|clear)|unclear|undecided|undetermined"
    r"|indeterminate|inconclusive|borderline|debatable|questionable|doubtful|tentative(?:ly)?"
    r"|on\s+the\s+fence|(?:could|can)\s+go\s+either\s+way|torn\s+between|tbd|to\s+be\s+determined"
    r"|needs?\s+(?:human\s+|further\s+|manual\s+)?review|unverifi(?:ed|able)"
    r"|hard\s+to\s+(?:say|tell|judge|determine)|(?:can\s*not|can't|could\s*n[o']t|unable\s+to"
    r"|impossible\s+to)\s+(?:be\s+)?(?:judge|judged|tell|determine|determined|assess|assessed"
    r"|evaluate|evaluated|verify|verified|decide|decided|grade|graded|say|confirm)"
    r"|lean(?:s|ing)?\s+(?:towards?\s+|to\s+)?(?:fail\w*|no|false|negative|not)"
    r"|maybe|perhaps|possibly|probably\s+not|might\s+(?:not|fail)|toss[\s-]?up"
    r"|50\s*[/-]\s*50|fifty[\s-]fifty|n\s*/\s*a|not\s+applicable|no\s+(?:idea|verdict|decision)"
    r"|(?:insufficient|not\s+enough)\s+(?:information|evidence|context))"
)
_SKELETON = re.compile(
    rf"{_FIELD_FALSE}|{_CORRECTION}|{_UNDECIDED}"
    # failing in Latin-script languages (accents dropped): Turkish, Vietnamese, German, French,
    # Italian, Spanish, Portuguese, Polish, Czech, Slovak, Indonesian/Malay, Swedish, Norwegian,
    # Danish, Finnish, Estonian, Hungarian, Romanian, Croatian, Slovenian, Lithuanian, Latvian,
    # Tagalog, Swahili, Dutch
    r"|\b(?:basarisiz\w*|gecmedi|gecemedi|karsilamiyor|karsilanmadi|yetersiz"
    r"|khong\s+(?:dat|dung|qua|thoa\s+man|dap\s+ung)|truot|that\s+bai"
    r"|nicht\s+(?:bestanden|erfullt|erreicht|korrekt|richtig)|durchgefallen|ungenugend"
    r"|echou\w*|echec|non\s+(?:rempli|satisfait|respecte|valide|conforme|reussi)|insuffisant"
    r"|non\s+(?:superat\w|soddisfatt\w|rispettat\w|conforme|corrett\w|valid\w)|bocciat\w|fallit\w"
    r"|insufficiente"
    r"|no\s+(?:aprobad\w|superad\w|cumplid\w|satisfech\w|correct\w|valid\w)|suspendid\w|reprobad\w"
    r"|fallid\w|incorrect\w|insuficiente"
    r"|nao\s+(?:aprovad\w|atendid\w|cumprid\w|satisfeit\w|passou)|reprovad\w|falhou|errad\w"
    r"|nie\s+(?:spelnia|zaliczon\w|zdal\w?|przeszedl)|niezaliczon\w|niespelnion\w|bledn\w"
    r"|nesplnuje|nesplneno|nevyhovuje|nevyhovel|neprosel|nesplna"
    r"|tidak\s+(?:lulus|memenuhi|sesuai|benar|lolos)|gagal|tak\s+lulus"
    r"|underkand|inte\s+godkand|uppfyller\s+inte|ej\s+godkand|ikke\s+(?:bestatt|bestaet|godkjent"
    r"|godkendt|oppfylt|opfyldt)|oppfyller\s+ikke|opfylder\s+ikke|stryk|dumpet"
    r"|hylatty|ei\s+(?:tayty|tayta|hyvaksytty|laepinud|vasta)|epaonnistui|hylatud"
    r"|nem\s+(?:felel\s+meg|teljesult|teljesiti|ment\s+at)|sikertelen|megbukott|elegtelen"
    r"|nu\s+(?:indeplineste|satisface|a\s+trecut|corespunde)|respins\w*|picat"
    r"|nije\s+(?:prosao|zadovoljen\w*|ispunjen\w*)|ne\s+izpolnjuje|neuspesn\w*"
    r"|neatitinka|neislaike|neatbilst|nav\s+izpildits"
    r"|hindi\s+(?:pumasa|tama|nakapasa)|bagsak|haikufaulu|imeshindwa|haijafaulu"
    r"|niet\s+(?:geslaagd|gehaald)|gefaald)\b",
    re.IGNORECASE,
)
# failing in other scripts: Chinese, Japanese, Korean, Russian, Ukrainian, Bulgarian, Serbian,
# Greek, Hebrew, Arabic, Persian, Urdu, Hindi, Bengali, Tamil, Telugu, Marathi, Thai
_PLAIN = re.compile(
    r"失败|失敗|不及格|不合格|未达标|未達標|未通过|未通過|不通过|不通過|不正确|不符合|未满足"
    r"|不適合|未達|落第"
    r"|실패|미달|불합격|불통과|부적합|틀림|틀렸|충족\s*못|통과\s*못|통과하지\s*못"
    r"|не\s+(?:пройден\w*|зачтен\w*|выполнен\w*|соответству\w*|удовлетвор\w*|прошел|прошёл"
    r"|відповідає|виконано|пройшов|пройдено)|провал\w*|неверн\w*|неправильн\w*|незачет|незачёт"
    r"|непройден\w*|неуспешн\w*|неуспјешн\w*|нису\s+испуњен\w*"
    r"|απέτυχε|αποτυχ\w*|δεν\s+(?:πληροί|περν|ικανοποιεί)|απορρίφθηκε"
    r"|נכשל|לא\s+(?:עומד|עבר|עונה)"
    r"|فشل|راسب|رسب|غير\s+(?:مستوف|مقبول|صحيح|ناجح)|لا\s+(?:يستوفي|يفي|يحقق)"
    r"|ناموفق|رد\s+شد|مردود|ناکام"
    r"|असफल|विफल|अनुत्तीर्ण|फेल|पूरा\s+नहीं"
    r"|ব্যর্থ|অকৃতকার্য|தோல்வி|విఫల|अयशस्वी|नापास"
    r"|ไม่ผ่าน|ล้มเหลว"
)


def reason_undercuts(skeleton_reason: str, plain_reason: str) -> bool:
    """Whether a passing grade's reason, read as its skeleton and its plain (NFKC, case-folded)
    form, sets the field the other way, corrects it, leaves the grade undecided, or fails in
    another language."""
    return bool(_SKELETON.search(skeleton_reason) or _PLAIN.search(plain_reason))
