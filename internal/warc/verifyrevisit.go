package warc

import (
	"bytes"
	"fmt"
	"strings"
	"time"
)

// revisit is a revisit record waiting for resolution in Finish.
type revisit struct {
	at        Problem // File, Record, Offset, RecordID
	self      *seen
	identical bool
	refersTo  string
	refURI    string
	refDate   time.Time
	hasDate   bool
	payload   digestValue
}

// checkRevisit checks a revisit record's own fields and queues it for
// resolution.
func (v *Verifier) checkRevisit(rec *Record, r report, self *seen) {
	h := &rec.Header
	profile := h.Get(FieldProfile)
	rv := &revisit{at: r.at, self: self, refersTo: h.Get(FieldRefersTo), refURI: stripAngle(h.Get(FieldRefersToTargetURI))}
	if d := h.Get(FieldRefersToDate); d != "" {
		t, err := ParseDate(d)
		if err != nil {
			r.fault("%s %q is not a W3C-ISO8601 UTC date", FieldRefersToDate, d)
		} else {
			rv.refDate, rv.hasDate = t, true
		}
	}
	hasRef := rv.refersTo != "" || (rv.refURI != "" && rv.hasDate)
	switch {
	case profile == "":
		r.fault("revisit record without %s", FieldProfile)
		return
	case strings.HasSuffix(profile, "/revisit/identical-payload-digest"),
		strings.HasSuffix(profile, "/revisit/uri-agnostic-identical-payload-digest"):
		rv.identical = true
		pd := h.Get(FieldPayloadDigest)
		if pd == "" {
			r.fault("identical-payload-digest revisit without %s", FieldPayloadDigest)
		} else if d, err := decodeDigest(pd); err != nil {
			if _, ok := err.(errUnsupportedAlg); ok {
				r.warn("payload digest %s not checked: %v", pd, err)
			} else {
				r.fault("payload digest %s cannot be decoded: %v", pd, err)
			}
		} else {
			rv.payload = d
		}
		if len(rec.Block) > 0 && !h.Has(FieldTruncated) {
			r.warn("identical-payload-digest revisit with a %d-byte block but no %s: length", len(rec.Block), FieldTruncated)
		}
		if !hasRef {
			r.warn("no %s nor %s + %s: the original capture cannot be located", FieldRefersTo, FieldRefersToTargetURI, FieldRefersToDate)
		}
	case strings.HasSuffix(profile, "/revisit/server-not-modified"):
		if !hasRef && !rv.hasDate {
			r.warn("no %s nor %s: the original capture cannot be located", FieldRefersTo, FieldRefersToDate)
		}
	default:
		r.warn("unknown revisit profile %q: its target is not checked", profile)
		return
	}
	if hasRef || rv.hasDate {
		v.revisits = append(v.revisits, rv)
	}
}

// resolve checks that a revisit's original is among the records seen: a
// response or resource, not another revisit, with the same payload digest.
func (v *Verifier) resolve(rv *revisit) {
	r := report{v, rv.at}
	missing := Fault
	if v.opts.ExternalTargets {
		missing = Warning
	}
	var t *seen
	if rv.refersTo != "" {
		t = v.byID[rv.refersTo]
		if t == nil {
			r.add(missing, "revisit target %s %s is not in the files verified", FieldRefersTo, rv.refersTo)
			return
		}
	} else {
		uri := rv.refURI
		if uri == "" && !rv.identical {
			uri = rv.self.uri // server-not-modified: the same URI
		}
		if uri == "" || !rv.hasDate {
			return
		}
		// Prefer the original among records sharing URI and date; a
		// revisit never resolves to itself.
		for _, c := range v.byURI[uriDate{uri, rv.refDate.UnixNano()}] {
			if c == rv.self {
				continue
			}
			if t == nil || t.typ == TypeRevisit {
				t = c
			}
		}
		if t == nil {
			r.add(missing, "revisit target %s at %s is not in the files verified", uri, FormatDate(rv.refDate))
			return
		}
	}
	where := fmt.Sprintf("record %d of %s", t.num, v.names[t.file])
	if t.typ == TypeRevisit {
		r.add(Fault, "revisit refers to another revisit (%s): it must name the original response", where)
		return
	}
	if t.typ != TypeResponse && t.typ != TypeResource {
		r.add(Fault, "revisit refers to a %s record (%s): want a response or resource", t.typ, where)
		return
	}
	if rv.refersTo != "" {
		if rv.refURI != "" && rv.refURI != t.uri {
			r.add(Warning, "%s %s differs from the target's %s %s", FieldRefersToTargetURI, rv.refURI, FieldTargetURI, t.uri)
		}
		if rv.hasDate && !rv.refDate.Equal(t.date) {
			r.add(Warning, "%s %s differs from the target's %s %s", FieldRefersToDate, FormatDate(rv.refDate), FieldDate, FormatDate(t.date))
		}
	}
	if !rv.identical || rv.payload.alg == "" {
		return
	}
	var got []byte
	switch {
	case t.payload.alg == rv.payload.alg:
		got = t.payload.sum
	case rv.payload.alg == "sha1" && t.sha1 != nil:
		got = t.sha1
	default:
		r.add(Warning, "cannot compare the payload digest with the target's (%s): different algorithms", where)
		return
	}
	if !bytes.Equal(got, rv.payload.sum) {
		r.add(Fault, "payload digest %s differs from the target's %s (%s)",
			rv.payload.format(rv.payload.sum), rv.payload.format(got), where)
	}
}
