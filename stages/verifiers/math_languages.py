"""Answer labels and "the answer is" phrases in the languages most common in math text (round 17):
"答案：$\\boxed{5}$", "Ответ: \\boxed{5}", "Die Antwort lautet $\\boxed{5}$", "答えは $\\boxed{5}$
です", "정답은 $\\boxed{5}$입니다". For each of zh, ja, ko, de, fr, es, pt, it, ru, pl, tr, nl, vi,
id, ar and hi: the nouns for answer and result, the word for final, the copula that states the
answer, and the connectives meaning so. A label counts only where it starts its clause (after a
separator or a connective), so "错误答案：" (a wrong answer) or "可能答案是" (maybe the answer) is no
commitment; doubt words are read separately (`math_doubt`)."""

from __future__ import annotations

import re

_NOUN = (
    r"(?:答案|回答|答|结果|結果|结论|解答|正确答案|答え|正解|求める値|値|정답|답|답안|해답|결과|antwort|ergebnis|lösung"
    r"|endergebnis|r[ée]ponse|r[ée]sultat|respuesta|resultado|soluci[óo]n|resposta|solução"
    r"|risposta|risultato|soluzione|ответ|результат|odpowied[źz]|wynik|cevap|yan[ıi]t|sonuç"
    r"|antwoord|resultaat|uitkomst|đáp\s+án|đáp\s+số|kết\s+quả|câu\s+trả\s+lời|jawaban(?:nya)?"
    r"|hasil(?:nya)?|الجواب|الإجابة|النتيجة|उत्तर|जवाब)"
)
_FINAL = (
    r"(?:最终|最后|最終的な|최종|endgültige|finale|final|finales|итоговый|окончательный"
    r"|ostateczna|son|nihai|uiteindelijke|cuối\s+cùng|akhir|النهائي|अंतिम)"
)
_ARTICLE = r"(?:die|das|der|la|le|el|a|o|il|l'|het|de|ال)"
# The copula after the noun, or its verb-first form: "答案是", "答えは", "정답은", "die Antwort
# lautet", "la respuesta es", "ответ равен", "đáp án là", "jawabannya adalah", "الجواب هو".
_COPULA = (
    r"(?:是|为|為|应为|應為|应是|就是|即为|即是|便是|等于|は|은|는|이|가|ist|lautet|est|es|é|è"
    r"|равен|равна|равно|будет|является|to|wynosi|is|là|bằng|adalah|ialah|yaitu|هو|هي|है)"
    # "la réponse est donc", "die Antwort ist also": an adverb for "so" after the copula
    r"(?:\s+(?:donc|also|somit|daher|quindi|dunque|portanto|então|entonces|pues|luego|dus"
    r"|тогда|итак|więc|zatem))?"
)
# "la respuesta correcta es", "die richtige Antwort": "correct" before or after the noun
_RIGHT = (
    r"(?:correct[ao]?|correcte|corrett[ao]|corret[ao]|richtige|juiste|правильный|poprawna"
    r"|doğru|đúng|benar|الصحيحة|सही|exact[ao]|esatt[ao]|juste)"
)
_CONNECTIVE = (
    r"(?:故|所以|因此|因而|综上所述|综上|于是|从而|则|即|那么|よって|したがって|ゆえに|つまり"
    r"|以上より|따라서|그러므로|그래서|즉|also|somit|daher|folglich|deshalb|insgesamt|damit|donc"
    r"|ainsi|alors|par\s+cons[ée]quent|finalement|por\s+lo\s+tanto|por\s+tanto|as[íi]|entonces"
    r"|luego|finalmente|portanto|então|logo|quindi|dunque|pertanto|perciò|così|infine|итак"
    r"|следовательно|таким\s+образом|значит|поэтому|тогда|zatem|więc|stąd|ostatecznie|dus"
    r"|daarom|vậy|do\s+đó|vì\s+vậy|như\s+vậy|jadi|maka|dengan\s+demikian|dolayısıyla|yani"
    r"|إذن|لذلك|وبالتالي|अतः|इसलिए)"
)
# German and Dutch put the verb first after a connective: "Also ist die Antwort".
_VERB_FIRST = r"(?:ist|lautet|is)\s+(?:die|das|het)\s+"
_STATED = (
    rf"(?:{_VERB_FIRST}|{_ARTICLE}\s*)?(?:(?:{_FINAL}|{_RIGHT})\s*)?{_NOUN}"
    rf"(?:\s*(?:{_FINAL}|{_RIGHT}))?"
    rf"(?:\s*[:：]|\s*{_COPULA}(?:\s*[:：])?)"
)
_START = r"(?:^|(?<=[,，、;；:：\n.。!！]))"
FOREIGN_COMMITMENT = re.compile(rf"(?i){_START}\s*(?:{_CONNECTIVE}\s*[,，、]?\s*)?{_STATED}\s*$")
_TRAILING = re.compile(r"(?:\s|\$|\\\(|\\\[|\*\*|__|\\)+$")
# What may close the answer's sentence after the box in a verb-final language: "です", "입니다".
FOREIGN_CLOSING = re.compile(
    r"\s*(?:です|である|だ|となる|になる|となります|になります|입니다|이다|이에요|예요|임|dir|tir"
    r"|dır|tır|है)"
)


def foreign_commitment(prefix: str) -> bool:
    """The sentence text before an answer ends with an answer label or phrase in another language
    that starts its clause ("由 $2+3=5$ 得，答案：", "Die Antwort lautet")."""
    text = _TRAILING.sub("", prefix[-200:])
    return bool(FOREIGN_COMMITMENT.search(text))
