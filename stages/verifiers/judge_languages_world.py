"""Orders to the grader in the languages `judge_languages` lacked (red team round 17: Finnish,
Latvian, Bulgarian, Bengali passed). The set is drawn systematically, not from the cases: every
official language of the EU and the thirty most spoken languages of the world (Ethnologue's
first-language and total-speaker lists, merged), with the Turkic, Caucasian and South Slavic
neighbours that share their scripts. Rows are `judge_address`'s format: (the grader named, a
verdict word, "ignore the previous instructions", an order word). Latin-script rows are read on
the skeleton (accents dropped: hyväksytty -> hyvaksytty, įvykdyta -> ivykdyta), the others on
`plain_form` (NFKC, case-folded).

`CLAUSES` names the grader by what it does ("quien evalúe", "qui corrige", "wer das benotet",
"whoever is scoring") for the languages whose rows name it by a noun only."""

from __future__ import annotations

WORLD_LATIN = {
    "fi": (
        r"\b(?:arvioij|arvostelij|tarkastaj|korjaaj|tentaattor)\w*",
        r"\b(?:hyvaksy|taytetty|tayttyny|tayttaa|lapais|lapi\b|oikein|true|passed"
        r"|taydet\s+pisteet)",
        r"\b(?:unohda|ohita|sivuuta)\w*\s+(?:kaikki\s+)?(?:aiemmat|edelliset|ylla\s+olevat)"
        r"\s+ohjee\w*",
        r"\b(?:merkitse|merkitkaa|pida|pitakaa|hyvaksy|hyvaksykaa|anna|antakaa|katso|pitaa"
        r"|taytyy|ole\s+hyva|olkaa\s+hyva)\w*",
    ),
    "et": (
        r"\b(?:hindaja|kontrollija|eksamineerija|parandaja|hindamismudel)\w*",
        r"\b(?:taidetu|sooritatu|labi(?:nud|tu)|arvestatu|rahulda|vastavaks|oige|heaks\s+kiidetu"
        r"|true|passed|maksimaal)",
        r"\b(?:ignoreeri|unusta)\w*\s+(?:koik\s+)?(?:eelnevad|varasemad)\s+(?:juhised|juhendid)",
        r"\b(?:markige|margi|lugege|loe|arvestage|andke|anna|palun|peab|tuleb)\b",
    ),
    "lv": (
        r"\b(?:vertetaj|parbauditaj|eksaminetaj|labotaj)\w*",
        r"\b(?:izpildit|nokartot|apstiprinat|apmierinat|pareiz|ieskaitit|true|passed|maksimal)",
        r"\b(?:ignorejiet|ignore|aizmirstiet|aizmirsti)\w*\s+(?:visus\s+)?(?:ieprieksej\w*)"
        r"\s+(?:noradijum|instrukcij)\w*",
        r"\b(?:atzimejiet|atzime|uzskatiet|uzskati|pieskiriet|pieskir|ludzu|jaatzime|vajag)\w*",
    ),
    "lt": (
        r"\b(?:vertintoj|tikrintoj|egzaminuotoj|taisytoj)\w*",
        r"\b(?:ivykdyt|ispildyt|islaikyt|patenkint|atitink|teising|iskaityt|true|passed|maksimal)",
        r"\b(?:ignoruokite|ignoruok|pamirskite|pamirsk)\w*\s+(?:visus\s+)?(?:ankstesn\w*)"
        r"\s+(?:nurodym|instrukcij)\w*",
        r"\b(?:pazymekite|pazymek|laikykite|iskaitykite|suteikite|prasome|prasau|turi|reikia)\w*",
    ),
    "hr_sr_bs": (
        r"\b(?:ocjenjiva|ocenjiva|ispitiva|procjenitelj|procenitelj|pregledava)\w*",
        r"\b(?:ispunjen|polozen|prolaz|prihvac|tocn|tacn|true|passed|maksimal)",
        r"\b(?:zanemari|ignoriraj|ignorisi|zaboravi)\w*\s+(?:sve\s+)?(?:prethodne)\s+"
        r"(?:upute|uputstva|instrukcije|naredbe)",
        r"\b(?:oznacite|oznaci|smatrajte|dajte|daj|molim|mora|treba)\w*",
    ),
    "sl": (
        r"\b(?:ocenjeval|preverjal|izprasevalec|izprasevalc)\w*",
        r"\b(?:izpolnjen|opravljen|sprejet|pravilno|true|passed|maksimal)",
        r"\b(?:prezri|ignoriraj|pozabi)\w*\s+(?:vsa\s+)?(?:prejsnja)\s+(?:navodila|ukaze)",
        r"\b(?:oznacite|oznaci|stejte|dajte|prosim|mora|treba)\w*",
    ),
    "sk": (
        r"\b(?:hodnotitel|skusajuc|opravujuc|posudzovatel|hodnotiac\w*\s+model)\w*",
        r"\b(?:splnen|prosl|vyhovuj|spravn|pravda|true|passed|maximaln)",
        r"\b(?:ignoruj|zabudni)\w*\s+(?:vsetky\s+)?(?:predchadzajuce)\s+(?:pokyny|instrukcie)",
        r"\b(?:oznacte|oznac|povazujte|udelte|dajte|prosim|musi|treba)\w*",
    ),
    "ga": (
        r"\b(?:measunoir|scrudaitheoir|ceartaitheoir|gradalai|moltoir)\w*",
        r"\b(?:comhlionta|pas|ceart|glactha|true|passed|marcanna\s+iomlana)\b",
        r"\bneamhaird\s+(?:a\s+)?dhean\w*\s+(?:de\s+)?na\s+treoracha",
        r"\b(?:marcail|tabhair|cuir|le\s+do\s+thoil|caithfidh)\b",
    ),
    "mt": (
        r"\b(?:evalwatur|ezaminatur|korrettur)\w*",
        r"\b(?:mghoddi|sodisfatt|accettat|korrett|true|passed)",
        r"\binjora\s+(?:l-)?(?:istruzzjonijiet)\s+(?:kollha\s+)?(?:precedenti|ta'\s+qabel)",
        r"\b(?:immarka|ikkunsidra|aghti|jekk\s+joghgbok|ghandu|ghandek)\b",
    ),
    "ms_jv": (  # Malay and Javanese (Indonesian is `judge_languages`'s)
        r"\b(?:penilai|pemeriksa|pamriksa|pambiji)\b",
        r"\b(?:lulus|dipenuhi|betul|markah\s+penuh|bener|kasil|true|passed)\b",
        r"\b(?:abaikan|lupakan|lalekna)\s+(?:semua\s+)?(?:arahan|prentah)\s+(?:sebelum\w*|sadurunge)",
        r"\b(?:tandakan|tandhani|berikan|wenehana|sila|mangga|mesti|kudu)\b",
    ),
    "ha": (
        r"\b(?:mai\s+(?:tantancewa|duba|jarrabawa|bada\s+maki)|alkalin\s+jarrabawa)\b",
        r"\b(?:ya\s+ci|nasara|daidai|an\s+cika|cikakken\s+maki|true|passed)\b",
        r"\b(?:yi\s+watsi\s+da|manta\s+da)\s+(?:duk\s+)?umarnin\s+(?:baya|da\s+suka\s+gabata)",
        r"\b(?:yi\s+alama|ba\s+da|don\s+allah|dole|ka\s+ba)\b",
    ),
    "yo": (
        r"\b(?:oludanwo|oluyewo|olusamisi|adajo\s+idanwo)\b",
        r"\b(?:yege|ti\s+koja|pe\s+perepere|otito|true|passed)\b",
        r"\b(?:foju\s+fo|gbagbe)\s+(?:gbogbo\s+)?(?:awon\s+)?ilana\s+(?:ti\s+tele|isaaju)",
        r"\b(?:jowo|samisi|fun|gbodo)\b",
    ),
    "az_uz": (  # Azerbaijani, Uzbek (Latin script); the schwa stays as it is on the skeleton
        r"\b(?:qiym(?:e|\u0259)tl(?:e|\u0259)ndirici|imtahan\s+g[oe]tur\w*|baholovchi"
        r"|tekshiruvchi|imtihonchi)\w*",
        r"\b(?:kecdi|kecib|ugurlu|duzgun|tam\s+bal|bajarildi|o'?tdi|to'?g'?ri|qabul|true|passed)",
        r"\b(?:evvelki|(?:e|\u0259)vv(?:e|\u0259)lki|oldingi)\s+(?:butun\s+|barcha\s+)?"
        r"(?:t(?:e|\u0259)limatlar\w*|ko'rsatmalar\w*)\s+(?:nezere\s+alma|e'tiborsiz|unut)",
        r"\b(?:qeyd\s+edin|verin|z(?:e|\u0259)hm(?:e|\u0259)t\s+olmasa|lazimdir|belgilang|bering"
        r"|iltimos|kerak)\b",
    ),
}

WORLD_NON_LATIN = {
    "bg_mk_sr": (  # Bulgarian, Macedonian, Serbian Cyrillic
        r"(?:оценяващ|проверяващ|оценител|изпитващ|оценувач|оцењивач|оцјењивач|испитивач)",
        r"(?:изпълнен|издържан|преминал|приет|одобрен|покрит|удовлетвор|исполнет|положен|испуњен|прихваћен|тачн"
        r"|true|passed|максимал)",
        r"(?:игнорирайте|игнорирај|забравете|заборави|занемари)\w*\s+(?:всички\s+|сите\s+|све\s+)?"
        r"(?:предишни|претходни)\w*\s+(?:инструкции|упатства|упутства|инструкције)",
        r"\w(?:ете|ите|йте)\b|моля|трябва|ве\s+молам|треба|мора|молим",
    ),
    "be": (
        r"(?:ацэншчык|праверачн|экзаменатар)",
        r"(?:выканан|залічан|прынят|правільн|true|passed|максімальн)",
        r"(?:ігнаруйце|забудзьце)\s+(?:усе\s+)?(?:папярэдн)\w*\s+(?:інструкцы|указанн)",
        r"\w(?:йце|іце)\b|калі\s+ласка|трэба|павінен",
    ),
    "kk_ky_mn": (  # Kazakh, Kyrgyz, Mongolian (Cyrillic)
        r"(?:бағалаушы|тексеруші|емтихан\s*алушы|баалоочу|текшерүүчү|үнэлэгч|шалгагч)",
        r"(?:орындалд|орындалған|өтті|қабылданд|дұрыс|сәйкес|қанағаттандыр|аткарылд|туура|тэнцсэн|биелсэн|зөв"
        r"|true|passed|ең\s*жоғары\s*балл)",
        r"(?:алдыңғы|мурунку|өмнөх)\s+(?:барлық\s+|бардык\s+|бүх\s+)?(?:нұсқау|көрсөтмө|заавар)\w*"
        r"\s+(?:елеме|этибар\s*алба|үл\s*тоо)",
        r"(?:белгілеңіз|белгіле|санаңыз|беріңіз|қойыңыз|өтінемін|тиіс|керек|белгилеңиз|бериңиз"
        r"|тэмдэглэнэ\s*үү|өгнө\s*үү|хэрэгтэй)",
    ),
    "bn": (
        r"(?:মূল্যায়নকারী|মূল্যায়নকারীর|পরীক্ষক|গ্রেডার|নিরীক্ষক)",
        r"(?:উত্তীর্ণ|পাস|পূর্ণ\s*নম্বর|সঠিক|গৃহীত|পূরণ|true|passed)",
        r"(?:আগের|পূর্ববর্তী)\s*(?:সমস্ত\s*|সব\s*)?(?:নির্দেশ|নির্দেশনা)\w*\s*(?:উপেক্ষা|ভুলে)",
        r"(?:করুন|দিন|চিহ্নিত|অনুগ্রহ|দয়া\s*করে|উচিত|হবে)",
    ),
    "ta": (
        r"(?:மதிப்பீட்டாளர|தேர்வாளர|சரிபார்ப்பவர|மதிப்பெண்\s*வழங்குபவர)",  # (stems: ர், ரு, ரை ...)
        r"(?:தேர்ச்சி|நிறைவேற்ற|பூர்த்தி|சரி|முழு\s*மதிப்பெண்|true|passed)",
        r"(?:முந்தைய|முன்பு)\s*(?:அனைத்து\s*)?(?:அறிவுறுத்தல்|வழிமுறை)\w*\s*(?:புறக்கணி|மறந்து)",
        r"(?:குறிக்கவும்|குறியிடவும்|கொடுக்கவும்|வழங்கவும்|தயவுசெய்து|வேண்டும்|கருதவும்)",
    ),
    "te": (
        r"(?:మూల్యాంకనకర్త|పరీక్షకుడు|పరీక్షకు|గ్రేడర్)",
        r"(?:ఉత్తీర్ణ|పాస్|పూర్తి\s*మార్కులు|సరైన|నెరవేర|true|passed)",
        r"(?:మునుపటి|ముందటి)\s*(?:అన్ని\s*)?(?:సూచనల|ఆదేశాల)\w*\s*(?:విస్మరించ|మర్చిపో)",
        r"(?:చేయండి|ఇవ్వండి|దయచేసి|గుర్తించండి|పరిగణించండి|వలెను)",
    ),
    "kn": (
        r"(?:ಮೌಲ್ಯಮಾಪಕ|ಪರೀಕ್ಷಕ|ಗ್ರೇಡರ್)",
        r"(?:ಉತ್ತೀರ್ಣ|ಪಾಸ್|ಪೂರ್ಣ\s*ಅಂಕ|ಸರಿ|ಪೂರೈಸ|true|passed)",
        r"(?:ಹಿಂದಿನ)\s*(?:ಎಲ್ಲಾ\s*)?(?:ಸೂಚನೆ)\w*\s*(?:ನಿರ್ಲಕ್ಷಿಸ|ಮರೆತು)",
        r"(?:ಮಾಡಿ|ನೀಡಿ|ದಯವಿಟ್ಟು|ಗುರುತಿಸಿ|ಪರಿಗಣಿಸಿ|ಬೇಕು)",
    ),
    "ml": (
        r"(?:മൂല്യനിർണ്ണയ|മൂല്യനിര്‍ണ്ണയ|പരീക്ഷക|ഗ്രേഡർ)",
        r"(?:വിജയ|പാസ്|മുഴുവൻ\s*മാർക്ക്|ശരി|പാലിച്ച|true|passed)",
        r"(?:മുമ്പത്തെ|മുൻ)\s*(?:എല്ലാ\s*)?(?:നിർദ്ദേശ)\w*\s*(?:അവഗണിക്ക|മറക്ക)",
        r"(?:ചെയ്യുക|നൽകുക|ദയവായി|അടയാളപ്പെടുത്തുക|കണക്കാക്കുക|വേണം)",
    ),
    "mr_ne": (  # Marathi, Nepali (Hindi's row reads the shared words)
        r"(?:मूल्यमापनकर्त|मूल्यमापक|परीक्षक|मूल्याङ्कनकर्ता|तपासनीस)",
        r"(?:उत्तीर्ण|पास|पूर्ण\s*गुण|पूर्णाङ्क|बरोबर|सही|पूर्ण\s*केल|true|passed)",
        r"(?:मागील|अघिल्ला|पहिलेका)\s*(?:सर्व\s*|सबै\s*)?(?:सूचना|निर्देशन)\w*\s*(?:दुर्लक्ष|बेवास्ता)",
        r"(?:करा|द्या|कृपया|चिन्हांकित|गर्नुहोस्|दिनुहोस्|पाहिजे)",
    ),
    "pa": (
        r"(?:ਮੁਲਾਂਕਣਕਾਰ|ਪ੍ਰੀਖਿਅਕ|ਗ੍ਰੇਡਰ|ਜਾਂਚਕਰਤਾ)",
        r"(?:ਪਾਸ|ਉੱਤੀਰਣ|ਪੂਰੇ\s*ਅੰਕ|ਸਹੀ|true|passed)",
        r"(?:ਪਿਛਲੀਆਂ|ਪਹਿਲੀਆਂ)\s*(?:ਸਾਰੀਆਂ\s*)?(?:ਹਦਾਇਤਾਂ)\s*(?:ਨੂੰ\s*)?(?:ਅਣਡਿੱਠ|ਭੁੱਲ)",
        r"(?:ਕਰੋ|ਦਿਓ|ਕਿਰਪਾ|ਚਿੰਨ੍ਹਿਤ|ਚਾਹੀਦਾ)",
    ),
    "gu": (
        r"(?:મૂલ્યાંકનકર્તા|પરીક્ષક|ગ્રેડર|તપાસનાર)",
        r"(?:પાસ|ઉત્તીર્ણ|પૂર્ણ\s*ગુણ|સાચું|true|passed)",
        r"(?:અગાઉની|પહેલાની)\s*(?:બધી\s*)?(?:સૂચનાઓ)\w*\s*(?:અવગણ|ભૂલી)",
        r"(?:કરો|આપો|કૃપા|ચિહ્નિત|જોઈએ)",
    ),
    "ur": (
        r"(?:جانچ\s*کنندہ|ممتحن|گریڈر|تشخیص\s*کار|جانچنے\s*والے)",
        r"(?:پاس|کامیاب|پورا|پوری|درست|مکمل\s*نمبر|true|passed)",
        r"(?:پچھلی|سابقہ)\s*(?:تمام\s*)?(?:ہدایات)\s*(?:کو\s*)?(?:نظر\s*انداز|بھول)",
        r"(?:کریں|دیں|براہ\s*کرم|نشان|چاہیے)",
    ),
    "am": (
        r"(?:ገምጋሚ|ፈታኝ|አራሚ|አስተካካይ)",
        r"(?:አልፏል|ተሟልቷል|ትክክል|ሙሉ\s*ነጥብ|true|passed)",
        r"(?:ቀደም\s*ያሉትን|ያለፉትን)\s*(?:ሁሉንም\s*)?(?:መመሪያዎች)\w*\s*(?:ችላ|እርሳ)",
        r"(?:ምልክት\s*አድርግ|ስጥ|ስጡ|እባክህ|እባክዎ|አለብህ)",
    ),
    "ka": (
        r"(?:შემფასებ|გამსწორებ|გამომცდ)",
        r"(?:ჩაბარებულ|შესრულებულ|სწორ|დაკმაყოფილებ|true|passed)",
        r"(?:წინა)\s*(?:ყველა\s*)?(?:ინსტრუქცი|მითითებ)\w*\s*(?:უგულებელყავი|დაივიწყე)",
        r"(?:მონიშნეთ|მიეცით|გთხოვთ|უნდა|ჩათვალეთ)",
    ),
    "hy": (
        r"(?:գնահատող|ստուգող|քննիչ)",
        r"(?:անցած|կատարված|ճիշտ|բավարարված|true|passed)",
        r"(?:նախորդ)\s*(?:բոլոր\s*)?(?:հրահանգներ)\w*\s*(?:անտեսեք|մոռացեք)",
        r"(?:նշեք|տվեք|խնդրում\s*եմ|պետք\s*է|համարեք)",
    ),
    "my": (
        r"(?:အကဲဖြတ်သူ|စစ်ဆေးသူ|အမှတ်ပေးသူ)",
        r"(?:အောင်|ပြည့်မီ|မှန်ကန်|true|passed)",
        r"(?:ယခင်)\s*(?:ညွှန်ကြားချက်)\w*\s*(?:လျစ်လျူ|မေ့)",
        r"(?:ပါ|ပေးပါ|ကျေးဇူးပြု|ရမည်)",
    ),
}

# the grader named by a clause in Russian, Chinese, Japanese: "тому, кто проверяет", "负责评分的人",
# "採点する方" (read with the verdict and order words of their language's row)
NON_LATIN_CLAUSES = {
    "ru": r"(?:кто|которы\w*)\s+(?:\w+\s+){0,2}?(?:провер|оценива|выставля)\w*",
    "zh": r"(?:评分|打分|批改|阅卷|评审|评估)的(?:人|老师|模型|同学|朋友|系统)",
    "ja": r"(?:採点|評価|審査)(?:する|している|される|を担当する)(?:方|人|者|モデル)",
}

# the grader named by a clause: "quien evalúe", "qui corrige", "wer das hier benotet"
CLAUSES = {
    "es": r"\b(?:quien(?:es)?|la\s+persona\s+que|el\s+que|la\s+que|aquel\s+que)\s+"
    r"(?:\w+\s+){0,2}?(?:evalu|corrig|califi|revis|puntu|juzg)\w*",
    "fr": r"\b(?:qui(?:conque)?|celui|celle|ceux|la\s+personne|l'?\s*on)\s+(?:qui\s+)?"
    r"(?:\w+\s+){0,2}?(?:corrige|evalue|note|juge|relit|valide)\w*",
    "de": r"\b(?:wer|die\s+person,?\s+die|derjenige,?\s+der|diejenige,?\s+die)\s+"
    r"(?:\w+\s+){0,4}?(?:benotet|bewertet|korrigiert|pruft|begutachtet|beurteilt)\b",
    "it": r"\b(?:chi(?:unque)?|la\s+persona\s+che|colui\s+che)\s+(?:\w+\s+){0,2}?"
    r"(?:valut|corregg|giudic|esamin|revision)\w*",
    "pt": r"\b(?:quem|a\s+pessoa\s+que|aquele\s+que)\s+(?:\w+\s+){0,2}?"
    r"(?:avali|corrig|julg|revis|pontu)\w*",
    "nl": r"\b(?:wie|degene\s+die|de\s+persoon\s+die)\s+(?:\w+\s+){0,3}?"
    r"(?:beoordeelt|nakijkt|corrigeert|evalueert)\b",
}
