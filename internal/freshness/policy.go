package freshness

import (
	"errors"
	"fmt"
	"time"
)

// Policy configures change estimation and revisit scheduling. The zero
// value is completed by Default.
type Policy struct {
	// MinInterval and MaxInterval bound every revisit interval. The
	// minimum protects sites from a runaway estimate; the maximum makes
	// even ignored pages (changing too fast to be worth chasing, or never
	// changing) come back now and then, so that their estimate stays
	// current. Defaults 1 h and 30 days.
	MinInterval time.Duration
	MaxInterval time.Duration
	// DefaultRate is the prior change rate, in changes per second, of a
	// URL without a sitemap changefreq. Default one change a week.
	DefaultRate float64
	// PriorWeight is how much the prior counts, in pseudo-changes: the
	// prior is worth PriorWeight changes seen in PriorWeight/rate seconds.
	// Default 1, so that a couple of visits override a sitemap's claim.
	PriorWeight float64
	// Memory is roughly how many observed changes the estimate remembers:
	// older observations fade so that a page whose behaviour changes is
	// followed. More memory is more precise (the relative standard error
	// is about 1/√Memory) and slower to follow. Default 100.
	Memory float64
}

// Defaults of Policy.
const (
	DefaultMinInterval = time.Hour
	DefaultMaxInterval = 30 * 24 * time.Hour
	DefaultRate        = 1 / (7 * 24 * 3600.0) // one change a week
	DefaultPriorWeight = 1.0
	DefaultMemory      = 100.0
)

// Default fills zero fields with the defaults.
func (p *Policy) Default() {
	if p.MinInterval == 0 {
		p.MinInterval = DefaultMinInterval
	}
	if p.MaxInterval == 0 {
		p.MaxInterval = DefaultMaxInterval
	}
	if p.DefaultRate == 0 {
		p.DefaultRate = DefaultRate
	}
	if p.PriorWeight == 0 {
		p.PriorWeight = DefaultPriorWeight
	}
	if p.Memory == 0 {
		p.Memory = DefaultMemory
	}
}

// Validate reports every setting that cannot work.
func (p Policy) Validate() error {
	var errs []error
	if p.MinInterval <= 0 {
		errs = append(errs, fmt.Errorf("freshness: min interval %v is not positive", p.MinInterval))
	}
	if p.MaxInterval < p.MinInterval {
		errs = append(errs, fmt.Errorf("freshness: max interval %v is below min interval %v", p.MaxInterval, p.MinInterval))
	}
	if !(p.DefaultRate > 0) {
		errs = append(errs, fmt.Errorf("freshness: default rate %v is not positive", p.DefaultRate))
	}
	if !(p.PriorWeight > 0) {
		errs = append(errs, fmt.Errorf("freshness: prior weight %v is not positive", p.PriorWeight))
	}
	if !(p.Memory >= 1) {
		errs = append(errs, fmt.Errorf("freshness: memory %v is below 1", p.Memory))
	}
	return errors.Join(errs...)
}
