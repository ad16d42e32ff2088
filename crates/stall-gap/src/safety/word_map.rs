//! A map from words to values for the gate's fixed word lists, read once
//! per word of every field.
//!
//! A `BTreeMap` lookup compares a word with a dozen others; the word
//! lists are fixed, so a hash table of them answers with one comparison.
//! The hash (FNV-1a) has no random keys and the table is never iterated,
//! so nothing the gate decides depends on an order.

/// Words with a value each; a later entry for a word replaces an earlier.
#[derive(Debug)]
pub(super) struct WordMap<V> {
    slots: Vec<Vec<(String, V)>>,
}

/// A set of words.
pub(super) type WordSet = WordMap<()>;

/// FNV-1a of `bytes`, continuing from `hash`.
pub(super) fn fnv1a_from(hash: u64, bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes.into_iter().fold(hash, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The FNV-1a offset basis, where every hash starts.
pub(super) const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a of a word.
pub(super) fn fnv1a(word: &str) -> u64 {
    fnv1a_from(FNV_START, word.bytes())
}

impl<V> WordMap<V> {
    fn slot(&self, word: &str) -> Option<&Vec<(String, V)>> {
        let len = u64::try_from(self.slots.len()).ok()?;
        let index = usize::try_from(fnv1a(word) % len.max(1)).ok()?;
        self.slots.get(index)
    }

    /// The value of `word`.
    pub(super) fn get(&self, word: &str) -> Option<&V> {
        self.slot(word)?
            .iter()
            .find(|(entry, _)| entry == word)
            .map(|(_, value)| value)
    }

    /// Whether `word` is in the map.
    pub(super) fn contains(&self, word: &str) -> bool {
        self.get(word).is_some()
    }
}

impl<V> FromIterator<(String, V)> for WordMap<V> {
    fn from_iter<I: IntoIterator<Item = (String, V)>>(entries: I) -> Self {
        let entries: Vec<(String, V)> = entries.into_iter().collect();
        let len = (entries.len() * 2).max(1);
        let mut slots: Vec<Vec<(String, V)>> = (0..len).map(|_| Vec::new()).collect();
        let modulus = u64::try_from(len).unwrap_or(1);
        for (word, value) in entries {
            let index = usize::try_from(fnv1a(&word) % modulus).unwrap_or(0);
            if let Some(slot) = slots.get_mut(index) {
                slot.retain(|(entry, _)| *entry != word);
                slot.push((word, value));
            }
        }
        WordMap { slots }
    }
}

impl FromIterator<String> for WordSet {
    fn from_iter<I: IntoIterator<Item = String>>(words: I) -> Self {
        words.into_iter().map(|word| (word, ())).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_and_replacement() {
        let map: WordMap<u8> = [("may", 1), ("june", 2), ("may", 3)]
            .into_iter()
            .map(|(word, value)| (word.to_owned(), value))
            .collect();
        assert_eq!(map.get("may"), Some(&3));
        assert_eq!(map.get("june"), Some(&2));
        assert_eq!(map.get("july"), None);
        let set: WordSet = ["a".to_owned()].into_iter().collect();
        assert!(set.contains("a") && !set.contains("b"));
        assert!(!WordSet::from_iter(Vec::<String>::new()).contains("a"));
    }
}
