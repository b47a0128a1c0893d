//! Game records: replay of SuperDuperGames transcripts (work in progress).
