package align_test

import (
	"fmt"
	"strings"

	"github.com/fwstruct/fwstruct/align"
)

// Train the unsupervised aligners on a few unaligned sentence pairs, then
// align a pair they have not seen: "the", which this corpus pairs with
// "la" more often than with "le", stays unaligned.
func Example() {
	var corpus []align.Pair
	for _, line := range []string{
		"the house ||| la maison",
		"the minister ||| le ministre",
		"the house of the minister ||| la maison du ministre",
		"a good minister ||| un bon ministre",
		"a house ||| une maison",
		"the good house ||| la bonne maison",
		"the minister is good ||| le ministre est bon",
	} {
		en, fr, _ := strings.Cut(line, " ||| ")
		corpus = append(corpus, align.Pair{English: strings.Fields(en), French: strings.Fields(fr)})
	}
	m, err := align.Train(corpus, 5)
	if err != nil {
		panic(err)
	}
	en, fr := []string{"the", "good", "minister"}, []string{"le", "bon", "ministre"}
	st := m.Sentence(en, fr)
	fmt.Printf("Dice(minister, ministre) = %.2f\n", st.Dice[2*st.Cols+2])
	for _, l := range m.Intersection(en, fr, align.IBM1) {
		fmt.Println(en[l[0]], "-", fr[l[1]])
	}
	// Output:
	// Dice(minister, ministre) = 1.00
	// good - bon
	// minister - ministre
}
