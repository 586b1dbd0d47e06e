// Package datasets turns data into fwstruct problems (package oracles): readers
// for the real formats used in the papers, deterministic synthetic
// generators, and the resolution and download of the data files.
//
// # Real data
//
//   - OCR (Taskar et al. 2003): ReadLetterData / ReadLetterFile parse
//     letter.data into words; OCRChain and LoadOCR build the chain problems of
//     the OCR-small and OCR-large splits (Lacoste-Julien et al. 2013,
//     Osokin et al. 2016, App. I.1).
//   - USPS digits (the ESL zip data): ReadUSPS and LoadUSPS build multiclass
//     problems.
//   - CoNLL-2000 text chunking and other column-format corpora (NER, ...):
//     ReadColumns / ReadColumnFile parse them into Sentences;
//     BuildDictionary extracts CRFsuite's chunking attributes
//     (ChunkingTemplates); NewChunking and LoadConll build Chunking
//     problems, chains with sparse binary emissions (Osokin et al. 2016,
//     App. I.2) that score predictions as the conlleval script does
//     (ChunkEval) and show them as bracketed chunks (Chunking.Render).
//
// Readers accept plain or gzip-compressed files (detected by the gzip magic
// bytes, not the file name) and report malformed input as errors naming the
// file and line, never by panicking.
//
// # Where the data lives
//
// The project never ships the datasets. Locate finds a dataset in an explicit
// path, then in $FWSTRUCT_DATA, then in the user cache directory (CacheDir);
// Download fetches the public files, verifying their SHA-256 digests. The
// layout under a data root is the one of OCR.Files, USPS.Files and
// Conll.Files, e.g. <root>/ocr/letter.data.gz.
//
// # Generated data
//
// Synthetic and SyntheticOCR generate a seeded OCR-like chain task that runs
// anywhere, and GapToy builds the toy problem of Osokin et al. (2016, App. C)
// on which gap sampling is min(n, K) times faster than uniform sampling.
package datasets
