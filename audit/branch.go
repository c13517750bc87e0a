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
	if !p.toks[i].ref() || i == 0 || i+1 < len(p.toks) && p.toks[i+1].text == "(" {
		return false // a call such as ObjectType::from_raw(9) is no value
	}
	switch p.toks[i-1].text {
	case "return", "=", "=>":
		return true
	case "{": // a block whose value is its only expression (Rust)
		return i+1 < len(p.toks) && p.toks[i+1].text == "}"
	case "(": // return (V);  but never a call's argument: log(V)
		return i >= 2 && p.toks[i-2].text == "return" && i+1 < len(p.toks) && p.toks[i+1].text == ")"
	}
	return false
}

// firstValue is the first branch value in toks[from:to], looking no
// further than reach tokens.
func (p *parser) firstValue(from, to int) (token, bool) {
	for i := from; i < min(to, from+reach); i++ {
		if p.valueAt(i) {
			return p.toks[i], true
		}
	}
	return token{}, false
}

// switchAt reads the body of switch (C, C++, Go, Zig) or match (Rust).
func (p *parser) switchAt(s int) {
	body := -1
	for i, n := s+1, 0; i < len(p.toks) && n < reach; i, n = p.next(i), n+1 {
		if t := p.toks[i].text; t == "{" {
			body = i
			break
		} else if t == ";" || t == "}" || t == ")" {
			return
		}
	}
	if body < 0 {
		return
	}
	e := p.end(body)
	for i := body + 1; i < e; i = p.next(i) {
		if p.toks[i].text == "case" {
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
	var labels []token
	i := body + 1
	for i < e && p.toks[i].text != "case" && p.toks[i].text != "default" {
		i = p.next(i)
	}
	for i < e {
		isCase := p.toks[i].text == "case"
		j := i + 1
		for ; j < e && p.toks[j].text != ":"; j = p.next(j) {
			if isCase && p.toks[j].ref() {
				labels = append(labels, p.toks[j])
			}
		}
		k := j + 1
		for k < e && p.toks[k].text != "case" && p.toks[k].text != "default" {
			k = p.next(k)
		}
		if v, ok := p.firstValue(j+1, k); ok {
			for _, l := range labels {
				p.add(body, ShapeSwitch, l, v)
			}
			labels = nil
		} else if p.leaves(j+1, k) {
			labels = nil
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
		if t := p.toks[i].text; t == "break" || t == "return" || t == "continue" || t == "goto" {
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
		if p.toks[i].text != "=>" {
			continue
		}
		// The arm's value runs to the next comma of the body, or is a block.
		k := i + 1
		if k < e && p.toks[k].text == "{" {
			k = p.next(k)
		} else {
			for k < e && p.toks[k].text != "," {
				k = p.next(k)
			}
		}
		v, ok := p.firstValue(i, min(k, e))
		if !ok && keyKind != 0 {
			v, ok = p.inferred(i+1, other(keyKind))
		}
		if ok {
			for j := from; j < i && j < from+reach; j++ {
				key := p.toks[j]
				if keyKind != 0 && !key.ref() {
					key, _ = p.inferred(j, keyKind)
				}
				p.add(body, ShapeSwitch, key, v)
			}
		}
		if k < e && p.toks[k].text != "," {
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
	if s+3 >= len(p.toks) || p.toks[s+1].text != "(" || p.toks[s+3].text != ")" {
		return 0
	}
	return p.decl[p.toks[s+2].text]
}

// inferred reads the Zig enum literal ".name" at toks[i] as a reference
// of the given kind.
func (p *parser) inferred(i int, kind byte) (token, bool) {
	if i+1 >= len(p.toks) || p.toks[i].text != "." || !isIdentStart(p.toks[i+1].text[0]) {
		return token{}, false
	}
	t := p.toks[i+1]
	t.text, t.kind = map[byte]string{'D': "DebugReportObjectTypeEXT.", 'O': "ObjectType."}[kind]+t.text, kind
	return t, true
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
	if s+1 < len(p.toks) && p.toks[s+1].text == "(" {
		from, to = s+2, p.end(s+1)
	} else {
		from = s + 1
		for to = from; to < len(p.toks) && to < from+reach && p.toks[to].text != "{" && p.toks[to].text != ";"; to = p.next(to) {
		}
	}
	keys := p.comparisons(from, to)
	if len(keys) == 0 || to+1 >= len(p.toks) {
		return
	}
	bodyFrom, bodyTo := to+1, to+1
	if p.toks[to].text == "{" {
		bodyFrom, bodyTo = to, p.end(to)
	} else if p.toks[bodyFrom].text == "{" {
		bodyTo = p.end(bodyFrom)
	} else {
		for bodyTo < len(p.toks) && bodyTo < bodyFrom+reach && p.toks[bodyTo].text != ";" {
			bodyTo++
		}
	}
	v, ok := p.firstValue(bodyFrom, min(bodyTo+1, len(p.toks)))
	if !ok {
		return
	}
	at := s
	if par := p.parent[s]; par >= 0 {
		at = int(par)
	}
	for _, k := range keys {
		p.add(at, ShapeIfChain, k, v)
	}
}

// comparisons returns the references of a condition made only of
// "x == K" or "K == x" terms joined by ||; nil for any other condition.
// It gives up at the first term that is not a comparison, so a long
// condition of another kind costs a few tokens.
func (p *parser) comparisons(from, to int) []token {
	var keys []token
	for i := from; i < to; {
		j := i
		for j < to && j < i+8 && p.toks[j].text != "||" {
			j++
		}
		t := p.toks[i:j]
		for len(t) >= 2 && t[0].text == "(" && t[len(t)-1].text == ")" {
			t = t[1 : len(t)-1]
		}
		if len(t) != 3 || t[1].text != "==" {
			return nil
		}
		switch {
		case t[2].ref() && !t[0].ref():
			keys = append(keys, t[2])
		case t[0].ref() && !t[2].ref():
			keys = append(keys, t[0])
		default:
			return nil
		}
		i = j + 1
	}
	return keys
}
