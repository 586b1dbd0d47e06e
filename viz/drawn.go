package viz

// Drawn returns how much of its data the figure draws: the line series
// with at least one point left after sanitization (reference lines and
// marks do not count), the finite bars, or the finite cells of a heat map;
// 0 for a figure that does not validate. A figure with Drawn() == 0 shows
// axes and a legend but no data: a notebook should say why instead of
// showing it (ssvmnb.Show does).
func (f *Figure) Drawn() int {
	if f.Validate() != nil {
		return 0
	}
	n := 0
	switch f.Kind {
	case Lines:
		ls, _ := f.lines()
		for _, l := range ls {
			if !l.ref && (len(l.x) > 0 || len(l.bx) > 0) {
				n++
			}
		}
	case Bars:
		for _, s := range f.Series {
			for _, v := range s.Y {
				if ok(v, false) {
					n++
				}
			}
		}
	case HeatMap:
		for _, row := range f.Cells {
			for _, v := range row {
				if ok(v, false) {
					n++
				}
			}
		}
	}
	return n
}
