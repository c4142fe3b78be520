// Stylesheets imported for their side effect are bundled by esbuild into public/dist/app.css.
declare module '*.css';
