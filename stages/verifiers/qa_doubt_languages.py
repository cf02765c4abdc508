"""Doubt stated in another language before a QA answer (red team round 17: `Je ne suis pas sûr.
<answer>Lyon</answer>`, `我不确定。`). The table is built, not grown case by case: for each language
the six notions the English lists hold (not sure, maybe, probably, I think, a guess, I don't know),
in the languages a model is most often asked in: the six UN languages (Arabic, Chinese, English,
French, Russian, Spanish) and German, Italian, Portuguese, Dutch, Polish, Turkish, Japanese,
Korean and Hindi. Words that are also English or name something else (German `raten`, rates;
Portuguese `chute`) are left out."""

from __future__ import annotations

import re

# language: (not sure, maybe, probably, I think, a guess, I don't know)
_NOTIONS: dict[str, tuple[str, ...]] = {
    "fr": ("pas (?:(?:vraiment|tout à fait|très|trop|si) )?(?:s[uû]re?|certaine?)|incertaine?", "peut[- ][eê]tre", "probablement|sans doute",
           "je pense|je crois|il me semble|je suppose|j'imagine", "au hasard|devin\\w*|supposition",
           "je ne sais pas|je sais pas|aucune id[ée]e"),
    "es": ("no estoy (?:(?:muy|del todo|completamente|tan) )?segur[oa]|insegur[oa]|no es seguro", "quiz[aá]s?|tal vez|a lo mejor",
           "probablemente|posiblemente|seguramente", "creo que|supongo|me parece",
           "adivin\\w*|al azar|conjetura", "no s[ée]|no lo s[ée]|ni idea"),
    "de": ("nicht (?:(?:ganz|so|wirklich|hundertprozentig) )?sicher|unsicher", "vielleicht|eventuell|m[öo]glicherweise"
           "|womöglich", "wahrscheinlich|vermutlich", "ich glaube|ich denke|ich vermute|ich schätze",
           "geraten|zufällig gewählt|tipp", "wei[ßs]s? (?:es )?nicht|keine ahnung"),
    "it": ("non (?:ne )?sono (?:(?:del tutto|molto|proprio|così) )?sicur[oa]|non sicur[oa]|incert[oa]", "forse|magari", "probabilmente",
           "penso che|credo che|suppongo|mi sembra", "indovin\\w*|a caso",
           "non lo so|non so|nessuna idea"),
    "pt": ("n[ãa]o tenho certeza|n[ãa]o estou (?:cert|segur)[oa]|incert[oa]", "talvez",
           "provavelmente|possivelmente", "acho que|creio que|suponho", "palpite|chut\\w+|adivinh\\w*",
           "n[ãa]o sei|n[ãa]o fa[çc]o ideia"),
    "nl": ("niet zeker|onzeker", "misschien|wellicht", "waarschijnlijk|vermoedelijk",
           "ik denk|ik geloof|ik vermoed", "gok|gokje|gegokt", "weet (?:het )?niet|geen idee"),
    "pl": ("nie jestem pewn[ya]|niepewn\\w*", "może|chyba", "prawdopodobnie",
           "myślę|sądzę|wydaje mi się", "zgaduj\\w*|strzelam", "nie wiem"),
    "tr": ("emin değilim", "belki", "muhtemelen|galiba", "sanırım|bence|düşünüyorum",
           "tahmin\\w*", "bilmiyorum"),
    "ru": ("не (?:\\w+ )?уверен\\w*|неуверен\\w*", "может быть|возможно|наверн\\w*", "вероятно",
           "думаю|полагаю|кажется", "наугад|угада\\w*|догадк\\w*", "не знаю|понятия не имею"),
    "ar": ("لست متأكد\\w*|غير متأكد\\w*", "ربما", "على الأرجح|من المحتمل", "أعتقد|أظن|اعتقد|اظن",
           "تخمين", "لا أعرف|لا اعرف|لا أدري"),
    "hi": ("पक्का नहीं|यकीन नहीं|निश्चित नहीं", "शायद", "संभवतः|संभवत", "मुझे लगता|मेरे ख्याल",
           "अनुमान|अंदाज़ा|अंदाजा", "मुझे नहीं पता|पता नहीं"),
}  # fmt: skip
# Scripts without spaces between words: a notion is found anywhere in the text.
_UNSPACED: dict[str, tuple[str, ...]] = {
    "zh": ("不确定|不確定|不太确定|不太確定|无法确定|無法確定|没把握|沒把握|不清楚", "也许|也許|或许|或許|说不定|說不定", "大概|可能",
           "我觉得|我覺得|我认为|我認為|我想", "猜|估计|估計", "不知道"),
    "ja": ("確信がな|自信がな|確かではな", "かもしれ|かも知れ", "たぶん|多分|おそらく|恐らく",
           "と思う|と思います|気がする", "推測|当てずっぽう", "わからな|分からな|わかりません|知らな"),
    "ko": ("확실하지 않|확신이 없|잘 모르", "아마|어쩌면", "아마도|일 것이", "것 같|생각합니다|생각해",
           "추측|찍", "모르겠|모릅니다"),
}  # fmt: skip

FOREIGN_DOUBT = re.compile(
    r"(?i)(?<![\w'])(?:"
    + "|".join(n for notions in _NOTIONS.values() for n in notions)
    + r")(?![\w'])|"
    + "|".join(n for notions in _UNSPACED.values() for n in notions)
)
