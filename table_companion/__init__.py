"""The product: `companion run` puts the rules engine (companion/), the dice reader (vision/),
the button panel (hw/) and the phone page (web/) together. Nothing else imports this package."""
