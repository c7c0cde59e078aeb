import { z } from "zod";

/**
 * A project's branding, used where a render shows the customer's brand (the `branding` fill of
 * clips). The logo is an image in one of the project's own buckets, read through its storage
 * connection; the service never fetches a logo from a URL.
 */
export const HexColorSchema = z.string().regex(/^#[0-9a-fA-F]{6}$/, { message: "color must be #rrggbb" });

export const BrandLogoSchema = z.strictObject({
  connectionId: z.string().min(1),
  bucket: z.string().min(1),
  key: z.string().min(1).max(1024),
});

export const ProjectBrandingSchema = z.strictObject({
  color: HexColorSchema.nullable().default(null),
  logo: BrandLogoSchema.nullable().default(null),
});
export type ProjectBranding = z.infer<typeof ProjectBrandingSchema>;

/** The largest logo accepted (PNG, JPEG or WebP): it is drawn a few hundred pixels wide. */
export const MAX_LOGO_BYTES = 5 * 1024 * 1024;
