import { z } from "zod";
import { ObjectKeySchema } from "./request-fields";

/**
 * A project's branding, used where a render shows the customer's brand (the `branding` fill of
 * clips). The logo is an image in one of the project's own buckets, read through its storage
 * connection; the service never fetches a logo from a URL.
 */
export const HexColorSchema = z.string().regex(/^#[0-9a-fA-F]{6}$/, { message: "color must be #rrggbb" });

export const BrandLogoSchema = z.strictObject({
  connectionId: z.string().min(1),
  bucket: z.string().min(1),
  key: ObjectKeySchema,
});

export const ProjectBrandingSchema = z.strictObject({
  color: HexColorSchema.nullable().default(null),
  logo: BrandLogoSchema.nullable().default(null),
});
export type ProjectBranding = z.infer<typeof ProjectBrandingSchema>;

/** The largest logo accepted (PNG, JPEG or WebP): it is drawn a few hundred pixels wide. */
export const MAX_LOGO_BYTES = 5 * 1024 * 1024;

/**
 * The runner call an `s3_presigned` clip job's runner step reads its brand logo with: such a job has
 * no bucket for the Worker to hand the logo over in (a bucket job gets it as a scratch object).
 * `logo` is null when there is none to draw; `note` then says why when one was set but left out.
 */
export const BRAND_LOGO_CALL = "clip_generation.logo";
export const BrandLogoHandoverSchema = z.object({
  logo: z
    .object({ data: z.base64(), contentType: z.string(), bucket: z.string(), key: z.string(), bytes: z.number().int().nonnegative() })
    .nullable(),
  note: z.string().nullable(),
});
export type BrandLogoHandover = z.infer<typeof BrandLogoHandoverSchema>;
