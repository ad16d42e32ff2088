//! Instructions to a model beyond English: overrides, takeovers and
//! role-play in the languages questions are most often asked in, and
//! notes addressed to whatever model reads the answer.
//!
//! Each language's override is a verb that sets something aside and an
//! object that names instructions, matched as word prefixes (`ignor…`,
//! `instruc…`) so that inflections need no list of their own. Chinese and
//! Japanese are written without spaces: there the words are found inside
//! the text, in either order, close together.

use std::sync::LazyLock;

use super::super::phrases::{Matching, PhraseIndex, with_capitals};
use super::super::text::{Text, Token, fold};

/// How far apart, in words, a verb and its object may stand.
const REACH: usize = 6;

/// How far apart, in characters, a verb and its object may stand where
/// words are not separated.
const UNSPACED_REACH: usize = 16;

/// Per language, the override verbs and the objects they set aside, as
/// word prefixes (several words: each a prefix, in order).
const SPACED_OVERRIDES: [(&[&str], &[&str]); 12] = [
    // Spanish
    (
        &[
            "ignora",
            "ignore",
            "olvida",
            "olvide",
            "omite",
            "descarta",
            "desobedece",
            "haz caso omiso",
            "no sigas",
            "no sigan",
        ],
        &[
            "instruc",
            "regla",
            "indicacion",
            "norma",
            "directriz",
            "lo anterior",
        ],
    ),
    // French
    (
        &[
            "ignore",
            "oublie",
            "ne tiens pas compte",
            "ne tenez pas compte",
            "fais abstraction",
            "faites abstraction",
            "ne suis pas",
            "ne suivez pas",
        ],
        &[
            "instruction",
            "consigne",
            "regle",
            "directive",
            "ce qui precede",
        ],
    ),
    // German
    (
        &[
            "ignorier",
            "vergiss",
            "vergessen",
            "missacht",
            "ubergeh",
            "befolge nicht",
            "folge nicht",
        ],
        &[
            "anweisung",
            "regel",
            "vorgabe",
            "richtlinie",
            "befehl",
            "instruktion",
            "obige",
        ],
    ),
    // Portuguese
    (
        &["ignor", "esquec", "desconsider", "nao siga", "nao sigas"],
        &["instruc", "regra", "diretriz", "orientac"],
    ),
    // Italian
    (
        &[
            "ignora",
            "ignori",
            "dimentica",
            "trascura",
            "non seguire",
            "non considerare",
        ],
        &["istruzion", "regol", "indicazion", "diretti"],
    ),
    // Russian
    (
        &[
            "игнорир",
            "проигнорир",
            "забудь",
            "забуд",
            "не обращай",
            "не следуй",
            "отбрось",
            "отмени",
            "отмените",
        ],
        &["инструкц", "правил", "указани", "команд"],
    ),
    // Polish
    (
        // Whole words where a prefix opens ordinary ones (`zasadniczo`,
        // `regularnie`, `nie stosujemy`).
        &[
            "zignoruj",
            "ignoruj",
            "pomin",
            "zapomnij",
            "nie przestrzegaj",
            "nie sluchaj",
        ],
        &[
            "polecen", "instrukc", "zasady", "zasadami", "zasadach", "reguly", "regulami",
            "wytyczn", "komend",
        ],
    ),
    // Turkish
    (
        // Whole verbs only: a negative is written onto the stem (`unutma`,
        // `uyma`), and the stem opens ordinary words too (`uymalı`).
        &["yok say", "gormezden gel", "umursama"],
        &["talimat", "kural", "komut", "yonerge", "direktif"],
    ),
    // Vietnamese
    (
        // `bỏ qua` is also "skip": a guide skipped is not an override, all
        // or the earlier instructions set aside are; `quên` alone is also
        // "used to".
        &[
            "bo qua",
            "phot lo",
            "quen het",
            "quen moi",
            "quen tat ca",
            "dung lam theo",
            "khong tuan theo",
        ],
        &[
            "moi huong dan",
            "moi chi dan",
            "tat ca huong dan",
            "cac huong dan truoc",
            "huong dan truoc",
            "chi dan truoc",
            "moi quy tac",
            "tat ca quy tac",
            "quy tac truoc",
            "moi chi thi",
            "moi menh lenh",
        ],
    ),
    // Korean, its particles written onto the word
    (
        &["무시", "잊어", "잊고", "따르지"],
        &["지시", "규칙", "명령", "지침", "설정", "프롬프트"],
    ),
    // Hindi, in Devanagari and in Latin letters
    (
        // Folding drops the vowel signs, so short Devanagari verbs would
        // find other words (`भूल`, "forget" and "mistake", as `भले`).
        &[
            "अनदेखा",
            "नज़रअंदाज़",
            "नजरअंदाज",
            "ignore kar",
            "bhool ja",
            "nazarandaz",
        ],
        &["निर्देश", "नियम", "आदेश", "instruction", "niyam", "nirdesh"],
    ),
    // Arabic
    (
        &["تجاهل", "انس", "لا تتبع", "لا تلتزم"],
        &[
            "التعليمات",
            "تعليمات",
            "القواعد",
            "الأوامر",
            "الإرشادات",
            "التوجيهات",
        ],
    ),
];

/// Chinese and Japanese overrides, found inside the text.
const UNSPACED_OVERRIDES: [(&[&str], &[&str]); 2] = [
    (
        &[
            "忽略",
            "忽视",
            "无视",
            "忘记",
            "忘掉",
            "不要遵循",
            "不要理会",
            "不理会",
            "无需遵守",
        ],
        &["指令", "指示", "规则", "说明", "提示", "设定"],
    ),
    (
        &["無視", "忘れ", "従わない"],
        &["指示", "命令", "ルール", "指令", "設定", "プロンプト"],
    ),
];

/// Takeovers and role-play, as whole words in order.
const SPACED_PHRASES: [&str; 44] = [
    // English role-play.
    "role play",
    "roleplay",
    "let s play a game",
    "play the role of",
    "stay in character",
    "imagine you are",
    "act as if you",
    "simulate being",
    "you will act as",
    // Spanish.
    "a partir de ahora eres",
    "ahora eres",
    "nuevas instrucciones",
    "prompt del sistema",
    "modo desarrollador",
    "finge que eres",
    "juego de rol",
    // French.
    "tu es maintenant",
    "vous etes maintenant",
    "tu es desormais",
    "vous etes desormais",
    "nouvelles instructions",
    "nouvelles consignes",
    "fais semblant",
    "jeu de role",
    // German.
    "du bist jetzt",
    "du bist nun",
    "ab jetzt bist du",
    "neue anweisungen",
    "rollenspiel",
    // Portuguese.
    "agora voce e",
    "voce agora e",
    "novas instrucoes",
    "finja que",
    // Italian.
    "ora sei",
    "adesso sei",
    "nuove istruzioni",
    "fingi di essere",
    "gioco di ruolo",
    // Russian.
    "теперь ты",
    "отныне ты",
    "новые инструкции",
    "притворись",
    // Arabic.
    "أنت الآن",
    "تعليمات جديدة",
];

/// Takeovers in Chinese and Japanese.
const UNSPACED_PHRASES: [&str; 10] = [
    "你现在是",
    "从现在开始你",
    "新的指令",
    "系统提示",
    "假装你是",
    "あなたは今",
    "今からあなたは",
    "新しい指示",
    "システムプロンプト",
    "ロールプレイ",
];

/// Words that open a note to someone, as whole words in order.
const ADDRESSES: [&str; 20] = [
    "note to",
    "note for",
    "message to",
    "message for",
    "instructions for",
    "dear",
    "hey",
    "hello",
    "attention",
    "if you are",
    "if you re",
    "as an",
    "nota para",
    "mensaje para",
    "note pour",
    "hinweis an",
    "hinweis fur",
    "notiz fur",
    "nota per",
    "примечание для",
];

/// Whatever model may read the answer, as whole words in order.
const MODELS: [&str; 20] = [
    "ai",
    "a i",
    "assistant",
    "language model",
    "llm",
    "chatbot",
    "bot",
    "gpt",
    "chatgpt",
    "claude",
    "gemini",
    "copilot",
    "agent",
    "model",
    "ia",
    "ki",
    "agente",
    "modelo",
    "asistente",
    "ии",
];

/// Words after a model that say the note is for it: `AI reading this`.
const READING: [&str; 4] = [
    "reading this",
    "processing this",
    "reading the answer",
    "that reads",
];

/// How many words may stand between an address and the model: `note to
/// the AI`, `if you are a language model`.
const ADDRESS_REACH: usize = 2;

/// `phrases` in both their forms ([`with_capitals`]), each with `value`.
fn forms<T: Copy>(phrases: &[&str], value: T) -> Vec<(String, T)> {
    with_capitals(phrases.iter().copied())
        .into_iter()
        .map(|phrase| (phrase, value))
        .collect()
}

fn plain_index(matching: Matching, phrases: &[&str]) -> PhraseIndex {
    let forms = forms(phrases, ());
    PhraseIndex::new(
        matching,
        forms.iter().map(|(phrase, ())| (phrase.as_str(), ())),
    )
}

/// Every language's override verbs, each with its language's index.
static VERBS: LazyLock<PhraseIndex<usize>> = LazyLock::new(|| {
    let forms: Vec<(String, usize)> = SPACED_OVERRIDES
        .iter()
        .enumerate()
        .flat_map(|(language, (verbs, _))| forms(verbs, language))
        .collect();
    PhraseIndex::new(
        Matching::Prefixes,
        forms
            .iter()
            .map(|(phrase, language)| (phrase.as_str(), *language)),
    )
});

/// Each language's objects, in the order of [`SPACED_OVERRIDES`].
static OBJECTS: LazyLock<Vec<PhraseIndex>> = LazyLock::new(|| {
    SPACED_OVERRIDES
        .iter()
        .map(|(_, objects)| plain_index(Matching::Prefixes, objects))
        .collect()
});

static UNSPACED: LazyLock<Vec<(Vec<String>, Vec<String>)>> = LazyLock::new(|| {
    UNSPACED_OVERRIDES
        .iter()
        .map(|(verbs, objects)| {
            let fold_all = |words: &[&str]| words.iter().map(|w| fold(w)).collect();
            (fold_all(verbs), fold_all(objects))
        })
        .collect()
});

static PHRASES: LazyLock<PhraseIndex> =
    LazyLock::new(|| plain_index(Matching::Words, &SPACED_PHRASES));
static UNSPACED_TAKEOVERS: LazyLock<Vec<String>> =
    LazyLock::new(|| UNSPACED_PHRASES.iter().map(|p| fold(p)).collect());
static ADDRESS_WORDS: LazyLock<PhraseIndex> =
    LazyLock::new(|| plain_index(Matching::Words, &ADDRESSES));
static MODEL_WORDS: LazyLock<PhraseIndex> = LazyLock::new(|| plain_index(Matching::Words, &MODELS));
static READING_WORDS: LazyLock<PhraseIndex> =
    LazyLock::new(|| plain_index(Matching::Words, &READING));

/// Whether `text` holds a character of a script written without spaces
/// (CJK and kana), where words are found inside the text.
fn has_unspaced_script(text: &str) -> bool {
    text.chars()
        .any(|c| ('\u{3000}'..='\u{9FFF}').contains(&c) || ('\u{F900}'..='\u{FAFF}').contains(&c))
}

/// An override or a takeover in any language of the lexicon.
pub(super) fn overrides_in_any_language(text: &Text) -> bool {
    let tokens = &text.tokens;
    let spaced = starts(tokens).any(|start| {
        VERBS.at(tokens, start).any(|(language, end)| {
            OBJECTS.get(*language).is_some_and(|objects| {
                let before = start.saturating_sub(REACH)..start;
                let after = end..end + REACH;
                before
                    .chain(after)
                    .any(|at| objects.end_at(tokens, at).is_some())
            })
        })
    });
    let unspaced = has_unspaced_script(&text.folded)
        && (UNSPACED.iter().any(|(verbs, objects)| {
            verbs.iter().any(|verb| {
                objects
                    .iter()
                    .any(|object| near(&text.folded, verb, object, UNSPACED_REACH))
            })
        }) || UNSPACED_TAKEOVERS
            .iter()
            .any(|phrase| text.folded.contains(phrase.as_str())));
    spaced || unspaced || PHRASES.found_in(tokens)
}

/// A note addressed to a model: `Note to the AI`, `Dear assistant`, `if
/// you are a language model`, `AI reading this`.
pub(super) fn addresses_a_model(text: &Text) -> bool {
    let tokens = &text.tokens;
    starts(tokens).any(|start| {
        let addressed = ADDRESS_WORDS.end_at(tokens, start).is_some_and(|end| {
            (end..=end + ADDRESS_REACH).any(|at| MODEL_WORDS.end_at(tokens, at).is_some())
        });
        let read_by = MODEL_WORDS
            .end_at(tokens, start)
            .is_some_and(|end| READING_WORDS.end_at(tokens, end).is_some());
        addressed || read_by
    })
}

fn starts(tokens: &[Token]) -> std::ops::Range<usize> {
    0..tokens.len()
}

/// Whether `a` and `b` both occur in `text` with at most `reach`
/// characters between them, in either order.
fn near(text: &str, a: &str, b: &str, reach: usize) -> bool {
    let positions = |needle: &str| -> Vec<(usize, usize)> {
        text.match_indices(needle)
            .map(|(at, found)| {
                let start = text.get(..at).unwrap_or_default().chars().count();
                (start, start + found.chars().count())
            })
            .collect()
    };
    let (left, right) = (positions(a), positions(b));
    left.iter().any(|(a_start, a_end)| {
        right.iter().any(|(b_start, b_end)| {
            let gap = if b_start >= a_end {
                b_start - a_end
            } else {
                a_start.saturating_sub(*b_end)
            };
            gap <= reach
        })
    })
}
