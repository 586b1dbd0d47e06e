// Package datasets turns data into fwstruct problems (package oracles): readers
// for the real formats used in the papers and for generic formats, deterministic
// synthetic generators, and the resolution and download of the data files.
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
//   - English-French word alignment (the Hansards data of the HLT-NAACL
//     2003 shared task): LoadHansards reads the gold pairs (sure and
//     possible links) and the unaligned pairs, trains the unsupervised
//     statistics and aligners of package align on the latter (Dice
//     coefficients, IBM Model 1, and the diagonal IBM Model 2 that labels
//     the 5,000-pair HansardsIntersected training set), and
//     AlignmentProblem turns pairs into oracles.Matching problems (Taskar,
//     Lacoste-Julien and Klein 2005) with the link features of
//     AlignmentFeatureNames, scored by the alignment error rate as the
//     task's wa_eval_align.pl computes it.
//
// # Your own data
//
// Two generic formats become Crammer-Singer multiclass problems
// (oracles.Multiclass):
//
//   - svmlight / libsvm, "label index:value ...": ReadSVMLight, LoadSVMLight;
//   - dense CSV with a label column: ReadCSV, LoadCSV.
//
// The readers return Examples (features and labels as written);
// NewMulticlassData maps the labels to classes 0..K-1 in sorted order
// (MulticlassData.Classes keeps the mapping), scales the features
// (Scaling: none, min-max or standardization, fitted on the training set
// only) and appends a bias feature. Any MULAN multi-label ARFF file with its
// XML label file (LoadMULAN), any column-format corpus (LoadConll) and any
// file in the USPS format (LoadUSPS) are read the same way: a training file
// and its test file, named explicitly (Options.TestPath) or found beside it
// by TestFileCandidates (X.t, X_test.csv, name-test.arff, ...). Load and
// LoadData accept every format by path (Recognize tells which) or by name;
// a test file recognizably of another format is an error naming both. The
// training file alone fixes the problem (d, the bias position, the classes
// or tags, the feature map): what only the test file has is dropped or
// belongs to no class, counted in Data.Unseen (see Unseen). Numbers in
// data files are decimal; Go's other forms (0x1p-2, 1_0, Inf, NaN) are
// errors naming the file and line.
//
// # Preprocessing
//
// Options.Scaling scales the numeric features of the usps, yeast/MULAN,
// svmlight and csv data (Scalable), fitted on the training file alone and
// applied unchanged to the test file. LoadData returns the fitted Scaler
// (Data.Scaler), which a model stores; Options.Scaler applies a stored one
// to other data instead of fitting a new one.
//
// Every reader accepts plain or gzip-compressed files (detected by the gzip
// magic bytes, not the file name), reports a cut gzip stream as ErrTruncated,
// and reports malformed input as an error naming the format, file and line,
// "svmlight: FILE:LINE: ...", never by panicking.
//
// # Where the data lives
//
// The project never ships the datasets. A path the user names (Options.Path,
// an explicit argument of Locate, LoadOCR, LoadUSPS) is used as given, or the
// load fails naming it: it never falls back to another copy of the data.
// Without a path, Locate finds a named dataset (ocr, usps, conll, yeast;
// LocateHansards and LocateHorses likewise) in $FWSTRUCT_DATA,
// then in the user cache directory (CacheDir); $FWSTRUCT_DATA naming a folder
// that does not exist is an error. Download fetches the public files,
// verifying their SHA-256 digests. The layout under a data root is the one of
// the datasets' Files, e.g. <root>/ocr/letter.data.gz or
// <root>/conll2000/train.txt.gz.
//
// # Generated data
//
// Synthetic and SyntheticOCR generate a seeded OCR-like chain task that runs
// anywhere.
package datasets
