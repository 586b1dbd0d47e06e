package datasets

// Unseen is what a test set holds that its training set does not. The
// problem is the training file's alone: its dimension d, the position of
// the bias feature, the classes (tags, labels) and the feature map are
// fixed by the training file, and the test file never changes them. What
// the test file has beyond them is left out of the model and counted
// here, so that it can be reported.
//
// The zero value means that the test set holds nothing the training set
// does not have.
type Unseen struct {
	// Features is the number of feature values of the test examples that
	// the training file's feature map has no feature for, dropped from
	// them: the entries of an svmlight test file beyond the training
	// file's largest feature index (or below its smallest, index 0 when
	// the training file is read as 1-based), and for column-format data
	// the attribute occurrences of the test tokens that the dictionary
	// built on the training file does not hold (unseen in training or
	// rarer there than ConllOptions.MinCount; see Chunking.Dropped). The
	// other formats have a fixed number of features (CSV columns, ARFF
	// attributes, USPS grey values) that the test file must match.
	Features int
	// Labels are the labels of the test set that no training example has
	// (classes of multiclass data, tags of column-format data), sorted as
	// the classes or tags of the problem. They are never a class of the
	// model: their examples or tokens get oracles.NoClass as ground truth,
	// so that every prediction on them is an error, in the task loss as in
	// every metric.
	Labels []string
	// Items is the number of test items whose label is one of Labels: the
	// examples of multiclass data, the tokens of column-format data (see
	// Item).
	Items int
	// Item names what Items counts: "example" or "token".
	Item string
}
