package audit

// Readers of the two branching shapes: switch/match arms and if chains.
// Every loop walks one group's direct children (p.next) or a bounded
// window, so a file costs linear time whatever its nesting.

// reach bounds how far from a label or condition a branch's value and its
// break are looked for. A value further away is not read (a missed row,
// never a false one).
const reach = 64

// valueAt reports whether toks[i] is the value a branch yields: after
// return, an assignment or a match arrow, or alone in a block.
func (p *parser) valueAt(i int) bool {
	if !p.isRef(i) || i == 0 || i+1 < len(p.toks) && p.is(i+1, "(") {
		return false // a call such as ObjectType::from_raw(9) is no value
	}
	switch prev := i - 1; {
	case p.is(prev, "return"), p.is(prev, "="), p.is(prev, "=>"):
		return true
	case p.is(prev, "{"): // a block whose value is its only expression (Rust)
		return i+1 < len(p.toks) && p.is(i+1, "}")
	case p.is(prev, "("): // return (V);  but never a call's argument: log(V)
		return i >= 2 && p.is(i-2, "return") && i+1 < len(p.toks) && p.is(i+1, ")")
	}
	return false
}

// firstValue is the index of the first branch value in toks[from:to],
// looking no further than reach tokens.
func (p *parser) firstValue(from, to int) (int, bool) {
	for i := from; i < min(to, from+reach); i++ {
		if p.valueAt(i) {
			return i, true
		}
	}
	return 0, false
}

// switchAt reads the body of switch (C, C++, Go, Zig) or match (Rust).
func (p *parser) switchAt(s int) {
	body := -1
	for i, n := s+1, 0; i < len(p.toks) && n < reach; i, n = p.next(i), n+1 {
		if p.is(i, "{") {
			body = i
			break
		} else if p.is(i, ";") || p.is(i, "}") || p.is(i, ")") {
			return
		}
	}
	if body < 0 {
		return
	}
	e := p.end(body)
	for i := body + 1; i < e; i = p.next(i) {
		if p.is(i, "case") {
			p.caseArms(body, e)
			return
		}
	}
	p.arrowArms(s, body, e)
}

// caseArms reads "case L1: case L2, L3: ... return V;" groups. Labels
// whose statements yield no value carry over to the next group (explicit
// or implicit fallthrough) unless the group breaks or returns.
func (p *parser) caseArms(body, e int) {
	var labels []int32
	i := body + 1
	for i < e && !p.is(i, "case") && !p.is(i, "default") {
		i = p.next(i)
	}
	for i < e {
		isCase := p.is(i, "case")
		j := i + 1
		for ; j < e && !p.is(j, ":"); j = p.next(j) {
			if isCase && p.isRef(j) {
				labels = append(labels, int32(j))
			}
		}
		k := j + 1
		for k < e && !p.is(k, "case") && !p.is(k, "default") {
			k = p.next(k)
		}
		if v, ok := p.firstValue(j+1, k); ok {
			value := p.refAt(v)
			for _, l := range labels {
				p.add(body, ShapeSwitch, p.refAt(int(l)), value)
			}
			labels = labels[:0]
		} else if p.leaves(j+1, k) {
			labels = labels[:0]
		}
		i = k
	}
}

// leaves reports whether a group of statements ends its case. A group
// longer than reach counts as leaving: carrying its labels on could only
// make false rows.
func (p *parser) leaves(from, to int) bool {
	if to-from > reach {
		return true
	}
	for i := from; i < to; i++ {
		if p.is(i, "break") || p.is(i, "return") || p.is(i, "continue") || p.is(i, "goto") {
			return true
		}
	}
	return false
}

// arrowArms reads "P1 | P2 => V," (Rust) and "P1, P2 => V," (Zig) arms.
// Zig's inferred literals (.buffer => .buffer) take their enums from the
// declared type of the switch operand.
func (p *parser) arrowArms(s, body, e int) {
	keyKind := p.operandKind(s)
	from := body + 1
	for i := body + 1; i < e; i = p.next(i) {
		if !p.is(i, "=>") {
			continue
		}
		// The arm's value runs to the next comma of the body, or is a block.
		k := i + 1
		if k < e && p.is(k, "{") {
			k = p.next(k)
		} else {
			for k < e && !p.is(k, ",") {
				k = p.next(k)
			}
		}
		var value ref
		v, ok := p.firstValue(i, min(k, e))
		if ok {
			value = p.refAt(v)
		} else if keyKind != 0 {
			value, ok = p.inferred(i+1, other(keyKind))
		}
		if ok {
			for j := from; j < i && j < from+reach; j++ {
				key := p.refAt(j)
				if keyKind != 0 && !p.isRef(j) {
					key, _ = p.inferred(j, keyKind)
				}
				p.add(body, ShapeSwitch, key, value)
			}
		}
		if k < e && !p.is(k, ",") {
			k-- // a block arm needs no comma: the next pattern starts here
		}
		from = k + 1
		i = k
	}
}

// operandKind is the enum of the operand of "switch (t)" when t was
// declared earlier in the file as "t: DebugReportObjectTypeEXT" or
// "t: ObjectType" (Zig parameters and variables); 0 otherwise.
func (p *parser) operandKind(s int) byte {
	if s+3 >= len(p.toks) || !p.is(s+1, "(") || !p.is(s+3, ")") {
		return 0
	}
	return p.decl[p.text(s+2)]
}

// inferred reads the Zig enum literal ".name" at toks[i] as a reference
// of the given kind; a sentinel's is no reference (kind 0).
func (p *parser) inferred(i int, kind byte) (ref, bool) {
	if i+1 >= len(p.toks) || !p.is(i, ".") || !isIdentStart(p.first(i+1)) {
		return ref{}, false
	}
	if p.kind(i+1) != 0 && !p.isRef(i+1) {
		return ref{}, true
	}
	prefix := map[byte]string{'D': "DebugReportObjectTypeEXT.", 'O': "ObjectType."}[kind]
	return ref{text: prefix + p.text(i+1), line: p.line(i + 1), kind: kind}, true
}

func other(kind byte) byte {
	if kind == 'D' {
		return 'O'
	}
	return 'D'
}

// ifAt reads "if (x == K || K == x) return V;" and its block and Rust/Go
// forms without parentheses. Every if of one block belongs to one table,
// so an else-if chain and a run of plain ifs read alike.
func (p *parser) ifAt(s int) {
	var from, to int // the condition
	if s+1 < len(p.toks) && p.is(s+1, "(") {
		from, to = s+2, p.end(s+1)
	} else {
		from = s + 1
		for to = from; to < len(p.toks) && to < from+reach && !p.is(to, "{") && !p.is(to, ";"); to = p.next(to) {
		}
	}
	keys := p.comparisons(from, to)
	if len(keys) == 0 || to+1 >= len(p.toks) {
		return
	}
	bodyFrom, bodyTo := to+1, to+1
	if p.is(to, "{") {
		bodyFrom, bodyTo = to, p.end(to)
	} else if p.is(bodyFrom, "{") {
		bodyTo = p.end(bodyFrom)
	} else {
		for bodyTo < len(p.toks) && bodyTo < bodyFrom+reach && !p.is(bodyTo, ";") {
			bodyTo++
		}
	}
	v, ok := p.firstValue(bodyFrom, min(bodyTo+1, len(p.toks)))
	if !ok {
		return
	}
	at := s
	if par := p.parent(); par >= 0 {
		at = par
	}
	value := p.refAt(v)
	for _, k := range keys {
		p.add(at, ShapeIfChain, p.refAt(k), value)
	}
}

// comparisons returns the references of a condition made only of
// "x == K" or "K == x" terms joined by ||; nil for any other condition.
// It gives up at the first term that is not a comparison, so a long
// condition of another kind costs a few tokens.
func (p *parser) comparisons(from, to int) []int {
	var keys []int
	for i := from; i < to; {
		j := i
		for j < to && j < i+8 && !p.is(j, "||") {
			j++
		}
		a, b := i, j // the term, toks[a:b]
		for b-a >= 2 && p.is(a, "(") && p.is(b-1, ")") {
			a, b = a+1, b-1
		}
		if b-a != 3 || !p.is(a+1, "==") {
			return nil
		}
		switch {
		case p.isRef(a+2) && !p.isRef(a):
			keys = append(keys, a+2)
		case p.isRef(a) && !p.isRef(a+2):
			keys = append(keys, a)
		default:
			return nil
		}
		i = j + 1
	}
	return keys
}
