//! A postal address, by its structure in any language: a street word with
//! a house number, and a postcode or a flat, floor or office beside it
//! (`Hauptstraße 12, 10115 Berlin`, `ul. Długa 5, 00-238 Warszawa`,
//! `테헤란로 123, 4층`), or the block-and-number shapes Chinese and
//! Japanese write (`世纪大道100号`, `港区六本木1-2-3`).
//!
//! An address sends the person to a door the negotiation does not pass
//! through, as a phone number does; one part alone (a street name, a
//! number) is ordinary text, so two parts must stand together.

use std::sync::LazyLock;

use super::text::{is_currency_sign, is_word_char};
use super::word_map::WordSet;

/// Words for a street, road, avenue or square, and their abbreviations, in
/// the languages of the tables.
const STREET_WORDS: &str = "street st road rd avenue ave av lane ln drive boulevard blvd \
    highway hwy square sq strasse straße str weg platz gasse allee damm ufer chaussee rue \
    chemin allée allee quai impasse place cours calle avenida av paseo plaza carrera camino \
    carretera rua travessa praça largo estrada rodovia via viale piazza corso vicolo largo \
    ulica ul aleja al plac osiedle os улица ул проспект пр-т переулок пер шоссе бульвар \
    площадь наб набережная cadde cad caddesi sokak sok sk bulvar bulvarı mahalle mah mahallesi \
    đường phố phường quận huyện ngõ hẻm شارع طريق حي रोड मार्ग गली नगर sector सेक्टर \
    квартал";

/// German writes the street word onto the name (`Hauptstraße`).
const STREET_SUFFIXES: [&str; 7] = ["straße", "strasse", "str", "weg", "platz", "gasse", "allee"];

/// Korean writes the road word onto the name (`테헤란로`, `세종대로`,
/// `삼성로12길`): a name of two syllables or more before it.
const KOREAN_ROAD_SUFFIXES: [&str; 2] = ["로", "길"];

/// Words that say the number after them is a house's.
const NUMBER_MARKERS: &str = "no nº n° № nr số д дом";

/// Flats, floors, suites and offices, and post-office boxes.
const UNIT_WORDS: &str = "suite ste apt apartment flat unit floor fl og eg stock etage étage \
    piso planta andar sala piano interno lok lokal mieszkanie кв квартира офис этаж корп \
    корпус daire kat tầng phòng फ़्लैट फ्लैट मंज़िल مكتب شقة طابق";

/// The levels of a Vietnamese address, two of which in one field are an
/// address (`Phường Bến Nghé, Quận 1`).
const ADMIN_LEVELS: [&str; 4] = ["phường", "quận", "huyện", "xã"];

/// What a number counts when it is a sum, not a postcode (`25000 EUR`,
/// `150000 euros`): words and signs after it, in the tables' languages.
const COUNTED: [&str; 22] = [
    "eur", "euro", "usd", "dollar", "zł", "zl", "pln", "руб", "rub", "tl", "lira", "đồng", "vnd",
    "rs", "inr", "aed", "درهم", "won", "unit", "pcs", "stück", "sztuk",
];

static STREETS: LazyLock<WordSet> = LazyLock::new(|| set(STREET_WORDS));
static MARKERS: LazyLock<WordSet> = LazyLock::new(|| set(NUMBER_MARKERS));
static UNITS: LazyLock<WordSet> = LazyLock::new(|| set(UNIT_WORDS));

fn set(words: &str) -> WordSet {
    words.split_whitespace().map(str::to_owned).collect()
}

/// How far, in words, a house number may stand from its street word.
const NUMBER_REACH: usize = 3;

/// Whether `lower` (the lower-cased view, digits in ASCII) holds a postal
/// address.
pub(super) fn has_address(lower: &str) -> bool {
    if !lower.bytes().any(|b| b.is_ascii_digit()) {
        return false;
    }
    has_east_asian_address(lower) || has_street_address(lower)
}

fn has_street_address(lower: &str) -> bool {
    let words: Vec<&str> = lower
        .split(|c: char| !(is_word_char(c) || c == '-' || c == '№' || c == 'º' || c == '°'))
        .filter(|word| !word.is_empty() && *word != "-")
        .collect();
    let street_at: Vec<usize> = (0..words.len())
        .filter(|&i| words.get(i).is_some_and(|word| is_street(word)))
        .collect();
    let number_at = |i: usize| words.get(i).is_some_and(|word| is_house_number(word));
    let numbered_street = street_at.iter().any(|&at| {
        (at.saturating_sub(2)..at)
            .chain(at + 1..=at + NUMBER_REACH)
            .any(number_at)
    });
    let marked_number = words
        .iter()
        .enumerate()
        .any(|(i, word)| MARKERS.contains(word) && number_at(i + 1));
    // A flat, floor or office with its number (`piso 5`, `Suite 400`), or
    // a floor written onto its number (`4층`).
    let unit = words.iter().enumerate().any(|(i, word)| {
        is_numbered_floor(word)
            || (UNITS.contains(word)
                && (number_at(i + 1) || i.checked_sub(1).is_some_and(number_at)))
    });
    let postcode = words
        .iter()
        .any(|word| is_postcode(word) && !is_counted(lower, word));
    let levels = ADMIN_LEVELS
        .iter()
        .filter(|level| words.contains(level))
        .count();
    let street = !street_at.is_empty();
    let house = numbered_street || (marked_number && street);
    (house && (postcode || unit || levels >= 2)) || (street && unit && postcode)
}

/// Whether the number `word` in `lower` is a sum: a currency sign or a
/// word of what it counts beside it.
fn is_counted(lower: &str, word: &str) -> bool {
    lower.match_indices(word).any(|(at, _)| {
        let before = lower.get(..at).unwrap_or_default().trim_end();
        let after = lower
            .get(at + word.len()..)
            .unwrap_or_default()
            .trim_start();
        before.ends_with(is_currency_sign)
            || after.starts_with(is_currency_sign)
            || COUNTED.iter().any(|counted| after.starts_with(counted))
    })
}

fn is_street(word: &str) -> bool {
    STREETS.contains(word)
        || STREET_SUFFIXES
            .iter()
            .any(|suffix| word.len() > suffix.len() + 3 && word.ends_with(suffix))
        || KOREAN_ROAD_SUFFIXES.iter().any(|suffix| {
            word.strip_suffix(suffix).is_some_and(|name| {
                name.chars().count() >= 2
                    && name.chars().all(|c| ('\u{ac00}'..='\u{d7a3}').contains(&c))
            })
        })
}

/// A house number: up to five digits, a letter after them allowed (`12a`),
/// or numbers joined by hyphens (`1-2-3`).
fn is_house_number(word: &str) -> bool {
    let digits = word.chars().take_while(char::is_ascii_digit).count();
    let rest = word.get(digits..).unwrap_or_default();
    (1..=5).contains(&digits)
        && (rest.is_empty()
            || (rest.chars().count() == 1 && rest.chars().all(char::is_alphabetic))
            || rest
                .split('-')
                .skip(1)
                .all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit())))
}

/// A floor written onto its number (`4층`, `5階`, `28楼`, `2og`).
fn is_numbered_floor(word: &str) -> bool {
    let digits = word.chars().take_while(char::is_ascii_digit).count();
    digits > 0
        && matches!(
            word.get(digits..),
            Some("층" | "階" | "楼" | "og" | "eg" | "f")
        )
}

/// A postcode's shapes: five or six digits, `00-238`, `100-0001`, or
/// Argentina's `c1043aaz`.
fn is_postcode(word: &str) -> bool {
    let all_digits = |part: &str| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit());
    let len = word.chars().count();
    (all_digits(word) && (5..=6).contains(&len))
        || word.split_once('-').is_some_and(|(a, b)| {
            all_digits(a) && all_digits(b) && matches!((a.len(), b.len()), (2, 3) | (3, 4))
        })
        || (len == 8
            && word.chars().next().is_some_and(char::is_alphabetic)
            && word.chars().skip(1).take(4).all(|c| c.is_ascii_digit())
            && word.chars().skip(5).all(char::is_alphabetic))
}

/// Chinese `…路100号` (a road word, a number, `号`), and Japanese
/// `…区六本木1-2-3` or `…3丁目` (a district, then block numbers).
fn has_east_asian_address(lower: &str) -> bool {
    let chars: Vec<char> = lower.chars().collect();
    let road_number = chars.iter().enumerate().any(|(i, c)| {
        matches!(c, '路' | '街' | '道' | '巷' | '弄') && {
            let digits = chars
                .iter()
                .skip(i + 1)
                .take_while(|c| c.is_ascii_digit())
                .count();
            digits > 0 && chars.get(i + 1 + digits) == Some(&'号')
        }
    });
    let district_blocks = chars.iter().enumerate().any(|(i, c)| {
        matches!(c, '都' | '府' | '県' | '市' | '区' | '町' | '村')
            && chars
                .iter()
                .skip(i + 1)
                .take(10)
                .collect::<String>()
                .split(|c: char| !(c.is_ascii_digit() || c == '-' || c == '丁' || c == '目'))
                .any(|run| {
                    run.contains("丁目")
                        || run
                            .split('-')
                            .filter(|part| {
                                !part.is_empty() && part.chars().all(|c| c.is_ascii_digit())
                            })
                            .count()
                            >= 2
                })
    });
    road_number || district_blocks
}

#[cfg(test)]
mod tests {
    use super::has_address;

    #[test]
    fn addresses_are_found_by_structure_and_ordinary_numbers_are_not() {
        for address in [
            "lieferung an hauptstraße 12, 10115 berlin",
            "ul. długa 5, 00-238 warszawa",
            "ул. тверская, д. 7, кв. 12, москва, 125009",
            "서울시 강남구 테헤란로 123, 4층 (06142)",
            "221 harbor street, suite 400, oakland, ca 94607",
            "東京都港区六本木1-2-3 六本木ビル5階",
            "上海市浦东新区世纪大道100号 28楼",
            "av. corrientes 1234, piso 5, c1043aaz buenos aires",
            "số 45 lê lợi, phường bến thành, quận 1, tp. hồ chí minh 700000",
        ] {
            assert!(has_address(address), "{address}");
        }
        for ordinary in [
            "should the pilot cover 3 sites on two streets?",
            "is a budget of 150 000 eur for 12 months fine?",
            "would the office on the main street suit you, or a call?",
            "ship via dhl within 10 days, or by sea in 30?",
            "北京地铁10号线附近的办公室可以吗？",
            "iso 9001 and din en 12345: are both required?",
            "should we place 2 orders via road?",
            "would you take floor 3 for 25000 eur a month?",
            "¿un contrato a largo plazo de 24 meses por 150000 euros?",
        ] {
            assert!(!has_address(ordinary), "{ordinary}");
        }
    }
}
